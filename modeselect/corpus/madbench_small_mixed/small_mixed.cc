// MADbench2-like small-I/O mode: many small data transfers to one shared file mixed with
// metadata operations.
//  - every step each rank writes a 16 KiB record at (step * P + rank) * 16 KiB and, after a
//    barrier, reads back 4 KiB of the record its neighbour just wrote, checking it;
//  - rank 0 rewrites a small status file every step and every rank stats it;
//  - every 10 steps each rank drops a marker file; at the end rank 0 lists the directory,
//    checks that every marker is there and removes them.
//
// usage: small_mixed DIR STEPS
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static int rank = 0, nranks = 1;
constexpr size_t kRecord = 16 * 1024;
constexpr size_t kPeek = 4 * 1024;

[[noreturn]] static void Die(const std::string& what) {
  std::fprintf(stderr, "small_mixed[%d]: %s (%s)\n", rank, what.c_str(), std::strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

static void FillRecord(std::vector<char>& buf, int step, int owner) {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>((step * 131 + owner * 17 + i) & 0x7f);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc != 3) Die("usage: small_mixed DIR STEPS");
  const fs::path dir = argv[1];
  const int steps = std::atoi(argv[2]);

  if (rank == 0) fs::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string data = (dir / "records.dat").string();
  const std::string status = (dir / "status").string();
  int fd = open(data.c_str(), O_RDWR | O_CREAT, 0644);
  if (fd < 0) Die("open " + data);

  std::vector<char> record(kRecord), peek(kPeek), want(kRecord);
  const int neighbour = (rank + 1) % nranks;
  for (int step = 0; step < steps; ++step) {
    FillRecord(record, step, rank);
    off_t mine = (static_cast<off_t>(step) * nranks + rank) * kRecord;
    if (pwrite(fd, record.data(), kRecord, mine) != static_cast<ssize_t>(kRecord)) Die("pwrite " + data);
    if (fsync(fd) != 0) Die("fsync " + data);  // the neighbour reads it right after the barrier
    if (rank == 0) {
      std::ofstream(status, std::ios::trunc) << "step " << step << " of " << steps << "\n";
    }
    if (step % 10 == 0) {
      std::ofstream marker(dir / ("marker_" + std::to_string(step) + "_" + std::to_string(rank)));
      marker << rank << "\n";
      if (!marker) Die("marker");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    // Another node's record: read it through a descriptor opened after its writer's fsync.
    off_t theirs = (static_cast<off_t>(step) * nranks + neighbour) * kRecord;
    int rfd = open(data.c_str(), O_RDONLY);
    if (rfd < 0) Die("open " + data);
    if (pread(rfd, peek.data(), kPeek, theirs) != static_cast<ssize_t>(kPeek)) Die("pread " + data);
    close(rfd);
    FillRecord(want, step, neighbour);
    if (std::memcmp(peek.data(), want.data(), kPeek) != 0) {
      errno = 0;
      Die("record of rank " + std::to_string(neighbour) + " at step " + std::to_string(step) + " differs");
    }
    struct stat st;
    if (stat(status.c_str(), &st) != 0 || st.st_size == 0) Die("stat " + status);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (close(fd) != 0) Die("close " + data);
  MPI_Barrier(MPI_COMM_WORLD);

  if (rank == 0) {
    int markers = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().filename().string().rfind("marker_", 0) == 0) {
        ++markers;
        fs::remove(entry.path());
      }
    }
    int expected = ((steps + 9) / 10) * nranks;
    std::printf("small_mixed: %d steps, %d markers (expected %d)\n", steps, markers, expected);
    if (markers != expected) {
      errno = 0;
      Die("markers missing");
    }
  }
  MPI_Finalize();
  return 0;
}
