// Where the tasks of a job step go, as Slurm places them (the emulated cluster's srun and
// mpirun, tools/bbctl/emulator/job_run.cc), and the Slurm environment strings that describe it.
//
//   block (Slurm's default): consecutive ranks fill a node before the next; without a per-node
//     count the tasks are spread as evenly as they go, the first nodes taking one more
//     (6 tasks on 4 nodes: 2, 2, 1, 1).
//   cyclic: rank r on node r mod N.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::jobs {

enum class Distribution { kBlock, kCyclic };

inline constexpr int kMaxTasks = 1 << 20;  // the most tasks or nodes a step may have here

struct StepShape {
  int nodes = 0;           // nodes the step uses (the first ones of the job's)
  int tasks = 0;           // tasks of the step
  int tasks_per_node = 0;  // at most this many per node; 0 = no limit given
  Distribution distribution = Distribution::kBlock;
};

// "block", "cyclic", or Slurm's "block:cyclic"-style forms (the part before ':' counts).
// EINVAL for plane, arbitrary and anything else, naming it.
Result<Distribution> ParseDistribution(const std::string& text);

// The node (0-based, within the step's nodes) of every rank. EINVAL when the shape cannot be
// placed (no nodes or tasks, or more tasks than nodes x tasks_per_node).
Result<std::vector<int>> PlaceTasks(const StepShape& shape);

// Tasks per node in Slurm's compressed form: {2, 2, 2, 1} -> "2(x3),1".
std::string TasksPerNode(const std::vector<int>& node_of_rank, int nodes);
// Slurm's host list of nodes `prefix`0 .. `prefix`(n-1): "node[0-3]" ("node0" for one).
std::string HostList(const std::string& prefix, int nodes);

}  // namespace bb::jobs
