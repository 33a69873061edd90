// Slurm and MPI launch lines: srun, mpirun and mpiexec (Open MPI and MPICH/Hydra options) and
// #SBATCH directives, read into the geometry Slurm would give the step, with every option
// that takes a value consumed so that the value is never mistaken for the program.
//
//   srun    -N/--nodes, -n/--ntasks, --ntasks-per-node, -m/--distribution=block|cyclic[:...],
//           -D/--chdir, and every other option of srun(1), attached (-N4, --nodes=4) or not (-N 4).
//   mpirun  -np/-n/-c N, -N K/--npernode K/-ppn K, --map-by ppr:K:node | node (cyclic) |
//           slot/core/socket (block), -H/--host a,b, -wdir/-wd DIR, --hostfile F, -x VAR,
//           --mca k v, flags.
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modeselect/findings.h"

namespace bb::modeselect {

// True for srun, mpirun, mpiexec, mpiexec.hydra, orterun, prun.
bool IsLauncher(std::string_view program);

// `argv[0]` is the launcher; the Launch holds its geometry and the program with its arguments
// (Launch::argv). file/line/step are left for the caller.
Launch ParseLauncher(std::span<const std::string> argv);

struct SbatchGeometry {
  int nodes = 0;
  int ntasks = 0;
  int ntasks_per_node = 0;
  std::string distribution;  // "block", "cyclic" or ""
};

// The options of one #SBATCH line (the words after "#SBATCH"), applied to `g`.
void ApplySbatch(std::span<const std::string> args, SbatchGeometry* g);

// "4" -> 4, "2-4" -> 4 (the most Slurm may give), anything else -> 0.
int ParseCount(std::string_view s);
// "cyclic:block" -> "cyclic"; "block" -> "block"; others -> "".
std::string ParseDistribution(std::string_view s);

}  // namespace bb::modeselect
