// Where the tasks of a job step run, and how many reads of another task's data cross nodes.
//
// Placement is the emulated cluster's (tools/jobs/launch_args.h and placement.h, a tool
// library this one may not include), which follows Slurm 22.05 and Open MPI 4.1:
//   srun     -n or the job's tasks, over -N or the job's nodes (never more nodes than tasks),
//            at most --ntasks-per-node on a node when that fits; block (the default) fills a
//            node with consecutive ranks, spreading them evenly when no per-node count is given
//            (6 tasks on 4 nodes: 2, 2, 1, 1); cyclic puts rank r on node r mod N.
//   mpirun   -np or the job's tasks; K per node with -N K or --map-by ppr:K:node, else by slot
//            (the job's tasks per node); --map-by node is cyclic.
//   a plain command in the batch shell is one task.
//
// A shift says whose data each rank reads, as the benchmark computes it from its own rank:
//   kOffset    rank r reads rank (r + offset) mod tasks: mdtest -N S (stat S, read 2S, remove 3S)
//   kIorNode   IOR -C (hpc/ior src/ior.c): offset Q x (the tasks on node 0 when ranks 0 and 1
//              share a node, else 1), Q being -Q (1 by default): IOR's own test of the mapping
//   kIorRandom IOR -Z: an offset drawn evenly from [Q' x tasks on node 0, tasks), Q' = min(Q,
//              nodes - 1)
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "modeselect/findings.h"
#include "modeselect/static/cmdline/launchers.h"

namespace bb::modeselect {

struct StepPlacement {
  int tasks = 0;
  int nodes = 0;
  int tasks_per_node = 0;  // at most this many on a node; 0 = spread evenly
  bool cyclic = false;
};

// The placement of `l` (whose task count the caller has worked out: `tasks`) in the job `g`;
// nullopt when its tasks or nodes are not known.
std::optional<StepPlacement> PlaceStep(const Launch& l, const SbatchGeometry& g, int tasks);

// The node (0-based) of every rank; empty when `p` cannot be placed (no tasks or nodes, or more
// tasks than nodes x tasks_per_node).
std::vector<int> NodeOfRank(const StepPlacement& p);

struct RankShift {
  enum Kind : uint8_t { kOffset, kIorNode, kIorRandom };
  Kind kind = kOffset;
  int offset = 1;  // kOffset: the offset; kIorNode, kIorRandom: IOR's -Q
};

// Of the reads of another rank's data the shifts make (a rank that reads its own data is not
// counted), the fraction whose data is on another node: 0 when every such read stays on its
// node, 1 when every one crosses. nullopt when `node_of` is empty or no read is of another
// rank's data.
std::optional<double> CrossNodeFraction(std::span<const int> node_of, std::span<const RankShift> shifts);

// The same with the rank each rank reads given by `target` (nullopt: not known for that rank).
std::optional<double> CrossNodeFraction(std::span<const int> node_of,
                                        const std::function<std::optional<int>(int rank)>& target);

}  // namespace bb::modeselect
