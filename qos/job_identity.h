// JobResolver: which job a calling process belongs to
// (docs/architecture.md#qos-the-stage-and-the-controller).
//
// A job's identity comes from what the job cannot choose: the Slurm job of the process's cgroup
// (a "job_<id>" component of its path, as Slurm's cgroup plugins and the emulated cluster make
// them) — a process cannot write itself into another job's cgroup. Without one, its cgroup
// ("cgroup:<path>"), else its user ("uid:<n>"). Only where the site allows it (trust_environment,
// the daemon's qos_identity: environment) do BB_JOB_ID, then SLURM_JOB_ID in the process's
// environment (/proc/PID/environ) come first — then a process can name any job.
// The answer is cached per pid together with the process's start time, and the start time is
// checked again when the entry is older than `recheck_ns`: a pid reused by a new process gets a
// fresh answer.
//
// Thread-safety: JobOf may be called concurrently.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "fs/base/clock.h"

namespace bb::qos {

class JobResolver {
 public:
  // `proc` is the procfs root (tests point it at a fake tree); `clock` must outlive this.
  JobResolver(const Clock* clock, bool trust_environment, std::string proc = "/proc",
              int64_t recheck_ns = 1'000'000'000, size_t max_entries = 65536);

  std::string JobOf(pid_t pid, uid_t uid);

 private:
  struct Entry {
    std::string job;
    uint64_t start_time;
    int64_t checked_ns;
  };
  uint64_t StartTime(pid_t pid) const;
  std::string Resolve(pid_t pid, uid_t uid) const;
  // BB_JOB_ID, else SLURM_JOB_ID of the process at `base` (/proc/PID), else "".
  std::string FromEnvironment(const std::string& base) const;

  const Clock* const clock_;
  const bool trust_environment_;
  const std::string proc_;
  const int64_t recheck_ns_;
  const size_t max_entries_;
  std::mutex mu_;  // guards cache_
  std::unordered_map<pid_t, Entry> cache_;
};

}  // namespace bb::qos
