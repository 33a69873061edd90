// Rotating output snapshots (rsnapshot style): every step all ranks write their step's
// records into incoming/ (one small file per record); rank 0 then rotates the snapshots by
// renaming directories (snap.1 -> snap.2, snap.0 -> snap.1, incoming -> snap.0; the oldest
// snapshot is removed) and makes a fresh incoming/. Every rank then lists snap.0 and reads a
// few records of a rank on another node from snap.0 and snap.1, checking their contents. At
// the end rank 0 removes the tree.
//
// usage: rotate ROOT STEPS RECORDS_PER_RANK
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

int rank = 0, nranks = 1;

std::string RecordName(int owner, int rec) {
  char b[40];
  std::snprintf(b, sizeof b, "r%03d_%04d.rec", owner, rec);
  return b;
}

std::string Payload(int step, int owner, int rec) {
  std::string s = "step " + std::to_string(step) + " owner " + std::to_string(owner) + " rec " + std::to_string(rec);
  s.resize(512, '.');
  return s;
}

// 0 when the record in `dir` holds what (step, owner, rec) wrote
int CheckRecord(const fs::path& dir, int step, int owner, int rec) {
  std::ifstream in(dir / RecordName(owner, rec), std::ios::binary);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return got == Payload(step, owner, rec) ? 0 : 1;
}

void Rotate(const fs::path& root) {
  if (fs::exists(root / "snap.2")) fs::remove_all(root / "snap.2");
  if (fs::exists(root / "snap.1")) fs::rename(root / "snap.1", root / "snap.2");
  if (fs::exists(root / "snap.0")) fs::rename(root / "snap.0", root / "snap.1");
  fs::rename(root / "incoming", root / "snap.0");
  fs::create_directory(root / "incoming");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: rotate ROOT STEPS RECORDS_PER_RANK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fs::path root = argv[1];
  int steps = std::atoi(argv[2]), records = std::atoi(argv[3]);
  int other = (rank + nranks / 2) % nranks;
  long bad = 0;
  try {
    if (rank == 0) fs::create_directories(root / "incoming");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int step = 0; step < steps; ++step) {
      for (int r = 0; r < records; ++r) {
        std::ofstream out(root / "incoming" / RecordName(rank, r), std::ios::binary | std::ios::trunc);
        out << Payload(step, rank, r);
        if (!out) throw std::runtime_error("cannot write a record");
      }
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) Rotate(root);
      MPI_Barrier(MPI_COMM_WORLD);
      long listed = std::distance(fs::directory_iterator(root / "snap.0"), fs::directory_iterator{});
      if (listed != static_cast<long>(nranks) * records) {
        std::fprintf(stderr, "rotate[%d]: step %d: snap.0 holds %ld records\n", rank, step, listed);
        ++bad;
      }
      for (int r = rank % 4; r < records; r += records / 4) {
        bad += CheckRecord(root / "snap.0", step, other, r);
        if (step > 0) bad += CheckRecord(root / "snap.1", step - 1, other, r);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) fs::remove_all(root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rotate[%d]: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("rotate: %d steps of %d records, %d snapshots rotated, %ld bad\n", steps, nranks * records, steps,
                bad);
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
