// The processes of one job on the emulated cluster, as Slurm's cgroup keeps them: the batch
// shell and everything it starts are in one cgroup (cgroup v2, at /sys/fs/cgroup or the hybrid
// layout's /sys/fs/cgroup/unified, under bb-emu/job_<id>), so the job can be killed whole at
// its time limit and nothing it started outlives it. Where no writable cgroup v2 hierarchy
// exists, processes are found by the BB_EMU_JOB=<id> their environment carries (a process
// that clears its environment then escapes).
//
// Thread-safety: one job, one thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::ctl {

class JobCgroup {
 public:
  explicit JobCgroup(std::string job_id);
  ~JobCgroup();  // kills what is left and removes the cgroup
  JobCgroup(const JobCgroup&) = delete;
  JobCgroup& operator=(const JobCgroup&) = delete;

  // Makes the cgroup (OK without one: the environment marker is used instead).
  Status Create();
  // Moves `pid` into the cgroup (no-op without one).
  void Join(pid_t pid);
  // Kills every process of the job and waits (up to 5 s) until none is left. True when none is.
  bool KillAll();
  // The cgroup path, or "" when there is none.
  const std::string& path() const { return path_; }
  // The environment entry that marks the job's processes: "BB_EMU_JOB=<id>".
  std::string Marker() const { return "BB_EMU_JOB=" + job_id_; }

 private:
  std::vector<pid_t> Processes() const;

  const std::string job_id_;
  std::string path_;
};

}  // namespace bb::ctl
