// The command lines of srun and mpirun/mpiexec inside a job on the emulated cluster, read as
// Slurm 22.05's srun and Open MPI 4.1's mpirun read them: which program, how many tasks, and how
// they are placed (tools/jobs/placement.h). Placement options are the emulator's to honour;
// the other options of srun are accepted and ignored, mpirun's are kept for the real mpirun
// (environment, MCA parameters, binding, output). An option neither program has is an error.
//
// Inside an allocation srun inherits the job's task count (SLURM_NTASKS) unless -n is given,
// as Slurm does (so `srun --ntasks-per-node=1` alone still starts SLURM_NTASKS tasks); mpirun
// starts one rank per slot of the job unless -np is given, ranks by slot (block) unless asked
// to map by node (cyclic) or to put K on each node.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fs/base/status.h"
#include "tools/jobs/placement.h"

namespace bb::jobs {

// The allocation a step runs in (from the job's SLURM_* environment).
struct JobEnv {
  int nodes = 1;
  int tasks = 1;
  int tasks_per_node = 0;                    // the job's --ntasks-per-node, 0 when not given
  std::optional<Distribution> distribution;  // SLURM_DISTRIBUTION
};

struct SrunArgs {
  std::optional<int> nodes, tasks, tasks_per_node;
  std::optional<Distribution> distribution;
  std::string chdir;                 // -D/--chdir
  bool label = false;                // -l/--label
  std::vector<std::string> program;  // the command and its arguments
};

// `args` without the program name. EINVAL naming the option for an unknown one, a missing or
// bad value, or no program.
Result<SrunArgs> ParseSrunArgs(const std::vector<std::string>& args);
// The step's shape in `job`. EINVAL when it does not fit the allocation.
Result<StepShape> SrunShape(const SrunArgs& a, const JobEnv& job);

struct MpirunArgs {
  std::optional<int> np;
  std::optional<int> per_node;       // -N K, --npernode K, --pernode, --map-by ppr:K:node
  bool by_node = false;              // --map-by node: round robin over the nodes
  std::vector<std::string> kept;     // options for the real mpirun, in order
  std::vector<std::string> program;  // the command and its arguments
};

Result<MpirunArgs> ParseMpirunArgs(const std::vector<std::string>& args);
Result<StepShape> MpirunShape(const MpirunArgs& a, const JobEnv& job);

}  // namespace bb::jobs
