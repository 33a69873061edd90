// The #SBATCH directives of a Slurm batch script, read as sbatch reads them: lines starting
// "#SBATCH" before the first command line (blank lines and other comments may come between),
// each holding options in sbatch's spellings (-N 4, -N4, --nodes=4, --nodes 4). The options
// that shape the job (nodes, tasks, tasks per node, distribution, time limit, name) are kept;
// the rest of sbatch's options are accepted and ignored; an option sbatch does not have, or a
// bad value, is an error naming the file, line and option.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fs/base/status.h"
#include "tools/jobs/placement.h"

namespace bb::jobs {

struct BatchOptions {
  std::optional<int> nodes;                  // -N/--nodes (the larger of "min-max")
  std::optional<int> ntasks;                 // -n/--ntasks
  std::optional<int> ntasks_per_node;        // --ntasks-per-node
  std::optional<Distribution> distribution;  // -m/--distribution
  std::optional<int> time_limit_s;           // -t/--time
  std::string job_name;                      // -J/--job-name
};

// EINVAL "<source>:<line>: #SBATCH <option>: <what>".
Result<BatchOptions> ParseBatchDirectives(const std::string& text, const std::string& source);

// A Slurm time limit in seconds: "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS";
// "UNLIMITED"/"INFINITE" is nullopt. EINVAL otherwise.
Result<std::optional<int>> ParseTimeLimit(const std::string& text);

// The geometry the job gets on a cluster of `cluster_nodes` nodes (as sbatch and the
// allocation would have it), from the directives and the command line's overrides:
//   nodes: given, else ceil(ntasks / ntasks_per_node) with both given, else min(ntasks,
//     cluster) with ntasks given, else 1;
//   tasks: given, else nodes x ntasks_per_node, else one per node.
// EINVAL when the job asks for more nodes than the cluster has, or its tasks do not fit.
struct JobShape {
  int nodes = 1;
  int tasks = 1;
  int tasks_per_node = 0;  // as given (0 = none)
};
Result<JobShape> ShapeJob(const BatchOptions& o, int cluster_nodes);

}  // namespace bb::jobs
