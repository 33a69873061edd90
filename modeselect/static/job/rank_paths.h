// Task identity in the paths of the commands a launcher runs on every task (inline shell,
// helper scripts): the environment variables that tell tasks apart (one table), and what a
// path built from them names — the same path for every task, one per task, one per node, or
// another task's.
//
// Paths are words as the batch-script interpreter expands them (job_expand.cc): a variable it
// cannot know stays "${NAME}", arithmetic it cannot evaluate stays "$((...))" with the
// variables it knows put in, an opaque command substitution stays "$(...)".
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace bb::modeselect {

enum class RankScope : uint8_t {
  kTask,      // a different value on every task of the step (SLURM_PROCID)
  kNode,      // the node's: the same for the tasks of one node (SLURM_NODEID, the host name)
  kNodeSlot,  // the task's index on its node: the same values again on every node (SLURM_LOCALID)
  kSize,      // the step's task count (SLURM_NTASKS): a constant, used in shifts
};

struct RankVar {
  const char* name;
  RankScope scope;
};

// Every variable above, in one table.
std::span<const RankVar> RankVars();
// The row of `name`, or nullptr.
const RankVar* FindRankVar(std::string_view name);

enum class PathOwner : uint8_t {
  kAll,        // no task variable, every part known: every task names the same path
  kUnknown,    // no task variable, but a part only the task's shell knows (a variable it sets,
               // a command's output, a glob): which tasks name the same path is not known
  kTask,       // one path per task (a task variable, or node and node slot together)
  kNode,       // one per node, or names that repeat on every node (node or node slot alone)
  kOtherTask,  // a function of the task's rank that is not the rank ($((SLURM_PROCID+1))):
               // read, it is another task's file; written, still one per task
};

struct RankPath {
  PathOwner owner = PathOwner::kAll;
  std::string expr;  // kOtherTask: the arithmetic that names the other task, as written
};

// What `path` names for the tasks of a step of `tasks` tasks (0 = not known).
RankPath ClassifyPath(std::string_view path, int tasks);

// The task whose path rank `rank` names (p.owner == kOtherTask) in a step of `tasks` tasks;
// nullopt when the arithmetic cannot be evaluated.
std::optional<int> NamedTask(const RankPath& p, int rank, int tasks);

}  // namespace bb::modeselect
