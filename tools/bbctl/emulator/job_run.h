// Slurm batch jobs on the emulated cluster (bbctl job run), and the programs a job finds first
// on its PATH there: srun, mpirun/mpiexec and scontrol (bbctl itself, called by those names).
//
// A job run reads the script's #SBATCH directives (tools/jobs/batch_script.h), creates the
// workspace (or uses the one of that name), and runs the script's shell on node 0 — in node 0's
// mount namespace, in the folder it was started from (SLURM_SUBMIT_DIR), with the environment of
// a Slurm batch step plus BB_MOUNT (the workspace) and BB_WORKSPACE. The job's processes live in
// a cgroup of their own (job_cgroup.h): at the time limit, and when the script ends, whatever is
// left of the job is killed on every node. srun starts a step's tasks with Open MPI's mpirun as
// one MPI job, each task entering the mount namespace of the node the placement gives it
// (tools/jobs/placement.h) with SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS and
// SLURM_STEP_ID set; mpirun/mpiexec in the script spread their ranks the same way.
//
// Thread-safety: one job per process.
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"
#include "tools/jobs/selection.h"

namespace bb::ctl {

struct JobRunOptions {
  std::string name;  // the workspace (and the job's name)
  int mode = 0;      // 1..4, or 0 with mode_file
  std::string mode_file;
  int nodes = 0;            // overrides #SBATCH -N (0 = the script's)
  int tasks_per_node = 0;   // overrides #SBATCH --ntasks-per-node
  int timeout_s = 0;        // 0: the script's -t, else none
  std::string profile_out;  // write the I/O profile document here ("" = no profile)
  bool keep = false;        // keep the workspace afterwards
  bool json = false;        // print the outcome as one JSON line
  bool select = false;      // probe in mode 3, let bb-modeselect choose, then run in that mode
  std::string script;
  std::vector<std::string> args;
};

struct JobRunResult {
  int exit_status = 0;  // the script's; 124 when it was killed at the time limit
  bool timed_out = false;
  double wall_seconds = 0;
  int nodes = 0, tasks = 0, mode = 0;
  std::string job_id;
};

// Runs the job and waits for it (the exit status is the job's, not an error). Errors: no
// emulated cluster (ENOENT), a bad script, directive or mode file (EINVAL naming it), a job
// larger than the cluster, a workspace that cannot be made.
Result<JobRunResult> JobRun(const JobRunOptions& o);

// --select: one probe run in mode 3 with its profile, bb-modeselect's decision from the
// script, its sources and that profile, then the job in the selected mode. `probe` gets the
// probe's outcome, `selection` the decision — or mode 3 and why, when the selector failed,
// crashed, ran past its deadline, printed no decision or had no profile to read: the selector
// never fails the job. The result is the second run's; errors are JobRun's (of either run).
Result<JobRunResult> SelectAndRun(const JobRunOptions& o, JobRunResult* probe, jobs::Selection* selection);

// The job's srun, mpirun, mpiexec and scontrol: `name` is the name bbctl was called by. Returns
// the exit status (of the step, or 1 and a message on stderr for a bad command line).
int LauncherMain(const std::string& name, const std::vector<std::string>& args);
// `bbctl task --map N,N,... --step S -- CMD...`: one task of a step (started by mpirun): takes
// its rank from Open MPI, enters its node and runs CMD. Returns only on failure.
int TaskMain(const std::vector<std::string>& args);

}  // namespace bb::ctl
