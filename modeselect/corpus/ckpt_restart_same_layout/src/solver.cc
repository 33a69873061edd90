// A toy explicit solver with application-level checkpoint/restart.
//   solver --ckpt-dir DIR --steps N --every K --cells C [--restart]
// Without --restart it starts from the initial condition; with it, from this rank's newest
// checkpoint, which must then exist and hold the state the solver would have computed.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "checkpoint.h"

namespace {

void Step(State& s, int rank) {
  const double forcing = std::sin(0.1 * rank + s.step);
  for (size_t i = 0; i < s.field.size(); ++i) s.field[i] = 0.5 * s.field[i] + forcing + 1e-6 * (i % 1024);
  s.step++;
}

State Initial(int rank, size_t cells) {
  State s;
  s.field.assign(cells, 1.0 + rank);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string dir;
  long steps = 0, every = 1, cells = 0;
  bool restart = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--ckpt-dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--steps" && i + 1 < argc) steps = std::atol(argv[++i]);
    else if (a == "--every" && i + 1 < argc) every = std::atol(argv[++i]);
    else if (a == "--cells" && i + 1 < argc) cells = std::atol(argv[++i]);
    else if (a == "--restart") restart = true;
  }
  int rc = 0;
  try {
    CheckpointDir ckpt(dir, rank, 2);
    State s = Initial(rank, static_cast<size_t>(cells));
    if (restart) {
      auto last = ckpt.LoadLatest();
      if (!last) throw std::runtime_error("no checkpoint of rank " + std::to_string(rank) + " under " + dir);
      State expect = Initial(rank, static_cast<size_t>(cells));
      while (expect.step < last->step) Step(expect, rank);
      if (last->field != expect.field) throw std::runtime_error("checkpoint of step " + std::to_string(last->step) + " differs");
      s = std::move(*last);
    }
    const long start = s.step;
    while (s.step < start + steps) {
      Step(s, rank);
      if (s.step % every == 0) ckpt.Save(s);
    }
    if (rank == 0) std::printf("solver: %s at step %ld, now at %ld\n", restart ? "restarted" : "started", start, (long)s.step);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "solver[%d]: %s\n", rank, e.what());
    rc = 1;
  }
  int worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
