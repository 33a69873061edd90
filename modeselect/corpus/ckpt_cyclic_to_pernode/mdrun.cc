// Molecular-dynamics-style run with a checkpoint per rank: `run` integrates NPART particles
// per rank (harmonic wells, velocity Verlet) and writes ckpt/rank_NNNN/{state.bin,meta.txt},
// the state first as state.bin.part and renamed. `restart` runs with fewer ranks (one per
// node in the job script): each restart rank takes over the particles of a block of checkpoint
// ranks (meta.txt says how many ranks wrote the checkpoint), checks every piece against its
// meta checksum, continues the integration, and compares the energy with the first run's.
//
// usage: mdrun run|restart DIR NPART STEPS
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

int rank = 0, nranks = 1;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "mdrun[%d]: %s\n", rank, what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

uint64_t Checksum(const std::vector<double>& v) {
  uint64_t h = 1469598103934665603ULL;
  for (double d : v) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    h = (h ^ b) * 1099511628211ULL;
  }
  return h;
}

// x, v for every particle (interleaved); one step of velocity Verlet in wells at integer sites
void Integrate(std::vector<double>& xv, int steps) {
  const double dt = 0.01;
  for (int s = 0; s < steps; ++s) {
    for (size_t i = 0; i < xv.size(); i += 2) {
      double site = std::floor(xv[i] + 0.5), a = -(xv[i] - site);
      double vh = xv[i + 1] + 0.5 * dt * a;
      xv[i] += dt * vh;
      double a2 = -(xv[i] - site);
      xv[i + 1] = vh + 0.5 * dt * a2;
    }
  }
}

double Energy(const std::vector<double>& xv) {
  double e = 0;
  for (size_t i = 0; i < xv.size(); i += 2) {
    double d = xv[i] - std::floor(xv[i] + 0.5);
    e += 0.5 * xv[i + 1] * xv[i + 1] + 0.5 * d * d;
  }
  return e;
}

fs::path PieceDir(const fs::path& dir, int r) {
  char b[32];
  std::snprintf(b, sizeof b, "rank_%04d", r);
  return dir / b;
}

void WritePiece(const fs::path& dir, const std::vector<double>& xv, int steps) {
  fs::path d = PieceDir(dir, rank);
  fs::create_directories(d);
  {
    std::ofstream out(d / "state.bin.part", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(xv.data()), static_cast<std::streamsize>(xv.size() * sizeof(double)));
    if (!out) Die("cannot write " + (d / "state.bin.part").string());
  }
  fs::rename(d / "state.bin.part", d / "state.bin");
  std::ofstream meta(d / "meta.txt", std::ios::trunc);
  meta << "ranks " << nranks << "\nrank " << rank << "\nsteps " << steps << "\nvalues " << xv.size() << "\nchecksum "
       << Checksum(xv) << "\n";
}

std::vector<double> ReadPiece(const fs::path& dir, int r, int* writers, int* steps) {
  fs::path d = PieceDir(dir, r);
  std::ifstream meta(d / "meta.txt");
  std::string k;
  long values = 0, got_rank = -1;
  uint64_t sum = 0;
  meta >> k >> *writers >> k >> got_rank >> k >> *steps >> k >> values >> k >> sum;
  if (!meta || got_rank != r) Die("bad meta in " + d.string());
  if (static_cast<long>(fs::file_size(d / "state.bin")) != values * 8) Die("short " + (d / "state.bin").string());
  std::vector<double> xv(values);
  std::ifstream in(d / "state.bin", std::ios::binary);
  in.read(reinterpret_cast<char*>(xv.data()), static_cast<std::streamsize>(values * sizeof(double)));
  if (!in || Checksum(xv) != sum) Die("checksum of " + (d / "state.bin").string());
  return xv;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 5) Die("usage: mdrun run|restart DIR NPART STEPS");
  std::string cmd = argv[1];
  fs::path dir = argv[2];
  long npart = std::atol(argv[3]);
  int steps = std::atoi(argv[4]);
  std::vector<double> xv;
  int writers = nranks, done = 0;
  try {
    if (cmd == "run") {
      xv.resize(2 * npart);
      for (long i = 0; i < npart; ++i) {
        xv[2 * i] = rank * npart + i + 0.3 * std::sin(0.7 * i);
        xv[2 * i + 1] = 0.1 * std::cos(1.3 * i + rank);
      }
      Integrate(xv, steps);
      WritePiece(dir, xv, steps);
    } else {
      // the restart has fewer ranks: rank k takes a contiguous block of the pieces
      ReadPiece(dir, 0, &writers, &done);
      if (writers % nranks != 0) Die("the restart's ranks must divide the checkpoint's");
      int per = writers / nranks;
      for (int r = rank * per; r < (rank + 1) * per; ++r) {
        int w, s;
        std::vector<double> piece = ReadPiece(dir, r, &w, &s);
        if (w != writers || s != done) Die("pieces of different checkpoints");
        xv.insert(xv.end(), piece.begin(), piece.end());
      }
      Integrate(xv, steps);
    }
  } catch (const std::exception& e) {
    Die(e.what());
  }
  double e = Energy(xv), total = 0;
  MPI_Reduce(&e, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int status = 0;
  if (rank == 0) {
    fs::path energy_file = dir / "energy.txt";
    if (cmd == "run") {
      std::ofstream(energy_file) << std::to_string(total) << "\n";
    } else {  // energy is conserved to well within 1e-3 over the run
      double before = 0;
      std::ifstream(energy_file) >> before;
      status = std::fabs(total - before) > 1e-3 * std::fabs(before);
      fs::remove_all(dir);
    }
    std::printf("mdrun %s: %d ranks, energy %.6f%s\n", cmd.c_str(), nranks, total,
                cmd == "run" ? "" : status ? " (drifted)" : " (conserved)");
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return status;
}
