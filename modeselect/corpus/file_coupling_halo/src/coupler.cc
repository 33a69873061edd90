// 2-D heat diffusion on a periodic strip of subdomains: rank r owns columns
// [r*NX, (r+1)*NX) of an NY x (P*NX) grid, with one ghost column on each side. Every
// coupling step the ranks exchange their edge columns through files (exchange_files.h) and
// take one explicit step. A second copy of the field is advanced alongside with MPI_Sendrecv
// halos; at the end both copies must be the same bit for bit.
//
// usage: coupler RUN_DIR STEPS
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "exchange_files.h"

namespace {

constexpr int kNy = 512, kNx = 64;
constexpr double kAlpha = 0.2;

struct Field {
  std::vector<double> u = std::vector<double>(kNy * (kNx + 2));
  double& at(int y, int x) { return u[y * (kNx + 2) + x]; }  // x = 0 and kNx + 1: ghosts

  std::vector<double> Column(int x) {
    std::vector<double> c(kNy);
    for (int y = 0; y < kNy; ++y) c[y] = at(y, x);
    return c;
  }
  void SetColumn(int x, const std::vector<double>& c) {
    for (int y = 0; y < kNy; ++y) at(y, x) = c[y];
  }
  void Step() {
    std::vector<double> next(u.size());
    for (int y = 0; y < kNy; ++y) {
      int yn = (y + 1) % kNy, ys = (y + kNy - 1) % kNy;
      for (int x = 1; x <= kNx; ++x) {
        next[y * (kNx + 2) + x] =
            at(y, x) + kAlpha * (at(yn, x) + at(ys, x) + at(y, x - 1) + at(y, x + 1) - 4 * at(y, x));
      }
    }
    u.swap(next);
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (rank == 0) std::fprintf(stderr, "usage: coupler RUN_DIR STEPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string run = argv[1];
  const int steps = std::atoi(argv[2]);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;

  Field files, memory;
  for (int y = 0; y < kNy; ++y) {
    for (int x = 1; x <= kNx; ++x) {
      double gx = rank * kNx + x - 1;
      files.at(y, x) = memory.at(y, x) = std::sin(2 * M_PI * gx / (size * kNx)) * std::cos(4 * M_PI * y / kNy) +
                                         (gx == 3 * size * kNx / 4 && y == kNy / 2 ? 50.0 : 0.0);
    }
  }

  double t0 = MPI_Wtime();
  std::vector<double> strip(kNy);
  for (int s = 0; s < steps; ++s) {
    // Through files: own edges out, the neighbours' facing edges in.
    coupler::PutStrips(run, s, rank, files.Column(1), files.Column(kNx));
    MPI_Barrier(MPI_COMM_WORLD);
    coupler::GetStrip(run, s, left, coupler::Side::kRight, strip);
    files.SetColumn(0, strip);
    coupler::GetStrip(run, s, right, coupler::Side::kLeft, strip);
    files.SetColumn(kNx + 1, strip);
    files.Step();
    if (s > 0) coupler::DropStrips(run, s - 1, rank);  // everyone has read step s - 1 by now

    // In memory, for the comparison.
    std::vector<double> send = memory.Column(1), recv(kNy);
    MPI_Sendrecv(send.data(), kNy, MPI_DOUBLE, left, 0, recv.data(), kNy, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    memory.SetColumn(kNx + 1, recv);
    send = memory.Column(kNx);
    MPI_Sendrecv(send.data(), kNy, MPI_DOUBLE, right, 1, recv.data(), kNy, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    memory.SetColumn(0, recv);
    memory.Step();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  coupler::DropStrips(run, steps - 1, rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {  // the step directories are empty now
    std::error_code ec;
    for (int s = 0; s < steps; ++s) {
      std::filesystem::remove(std::filesystem::path(coupler::StripPath(run, s, 0, coupler::Side::kLeft)).parent_path(),
                              ec);
    }
  }

  long bad = 0;
  double heat = 0;
  for (int y = 0; y < kNy; ++y) {
    for (int x = 1; x <= kNx; ++x) {
      bad += files.at(y, x) != memory.at(y, x);
      heat += files.at(y, x);
    }
  }
  long all_bad;
  double all_heat;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&heat, &all_heat, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("coupler: %d steps on %d ranks (%dx%d each), %.3f s, total heat %.6f, %ld values differ from the "
                "in-memory run\n",
                steps, size, kNy, kNx, MPI_Wtime() - t0, all_heat, all_bad);
  }
  MPI_Finalize();
  return all_bad == 0 ? 0 : 1;
}
