// A multi-phase pipeline: set up the run (rank 0), produce (every rank writes its part),
// barrier, read back and check (every rank its own part), reduce and post-process (rank 0
// writes the summary).
//
// usage: pipeline RUN_DIR MIB_PER_RANK
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "phases.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    if (argc != 3) throw std::runtime_error("usage: pipeline RUN_DIR MIB_PER_RANK");
    const std::string run_dir = argv[1];
    Manifest m;
    if (rank == 0) {  // phase 0: the run directory and its manifest
      m.ranks = size;
      m.bytes_per_rank = std::atoll(argv[2]) << 20;
      m.seed = 0x5eed0000u + static_cast<unsigned>(size);
      WriteManifest(run_dir, m);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    m = ReadManifest(run_dir);
    if (m.ranks != size) throw std::runtime_error("the manifest is for " + std::to_string(m.ranks) + " ranks");

    double t0 = MPI_Wtime();
    WritePart(run_dir, rank, m);  // phase 1: produce
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    unsigned long long sum = ReadPart(run_dir, rank, m), total = 0;  // phase 2: read back
    MPI_Reduce(&sum, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    if (rank == 0) {  // phase 3: post-process
      WriteSummary(run_dir, m, total);
      std::printf("pipeline: write %.3f s, read back %.3f s, checksum %llu\n", t1 - t0, t2 - t1, total);
    }
  } catch (const std::exception& e) {
    // The other ranks may be in any phase: end the whole job.
    std::fprintf(stderr, "pipeline[%d]: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}
