// Staged output in the manner of ADIOS2's BP engine: every output step each rank hands its
// block of every variable to its node's aggregator (ranks grouped by SLURM_NODEID), which
// appends the blocks to its subfile data.<node>; rank 0 collects the block metadata of all
// steps and writes the index md.idx when the output is closed.
//
// usage: bpwrite RUN.bp STEPS BLOCK
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "bpindex.h"

namespace {

int rank = 0, size = 1;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bpwrite[%d]: %s: %s\n", rank, what.c_str(), std::strerror(errno));
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void WriteAll(int fd, const void* data, size_t len, const std::string& path) {
  for (size_t done = 0; done < len;) {
    ssize_t n = ::write(fd, static_cast<const char*>(data) + done, len - done);
    if (n <= 0) Die("write " + path);
    done += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    if (rank == 0) std::fprintf(stderr, "usage: bpwrite RUN.bp STEPS BLOCK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string dir = argv[1];
  const int steps = std::atoi(argv[2]);
  const int64_t block = std::atoll(argv[3]);
  constexpr int kVariables = 2;

  // Aggregation: one aggregator (the lowest rank) per node.
  const char* nodeid = std::getenv("SLURM_NODEID");
  MPI_Comm agg;
  if (nodeid != nullptr) {
    MPI_Comm_split(MPI_COMM_WORLD, std::atoi(nodeid), rank, &agg);
  } else {
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &agg);
  }
  int arank, asize;
  MPI_Comm_rank(agg, &arank);
  MPI_Comm_size(agg, &asize);
  // Subfile numbers: the aggregators in rank order.
  int is_agg = arank == 0, subfile = 0, subfiles = 0;
  MPI_Exscan(&is_agg, &subfile, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) subfile = 0;
  MPI_Bcast(&subfile, 1, MPI_INT, 0, agg);
  MPI_Allreduce(&is_agg, &subfiles, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  if (rank == 0 && ::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) Die("mkdir " + dir);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();

  int fd = -1;
  const std::string data_path = dir + "/data." + std::to_string(subfile);
  if (is_agg) {
    fd = ::open(data_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) Die("create " + data_path);
  }
  std::vector<double> mine(block), gathered(is_agg ? block * asize : 0);
  std::vector<bp::BlockRecord> records;  // of this rank's blocks
  int64_t offset = 0;                    // the aggregator's end of data
  for (int step = 0; step < steps; ++step) {
    for (int v = 0; v < kVariables; ++v) {
      const int64_t start = rank * block;
      for (int64_t i = 0; i < block; ++i) mine[i] = bp::Value(v, step, start + i);
      auto [lo, hi] = std::minmax_element(mine.begin(), mine.end());
      MPI_Gather(mine.data(), static_cast<int>(block), MPI_DOUBLE, gathered.data(), static_cast<int>(block), MPI_DOUBLE,
                 0, agg);
      int64_t my_offset = 0;
      if (is_agg) {
        WriteAll(fd, gathered.data(), gathered.size() * sizeof(double), data_path);
        my_offset = offset;
        offset += static_cast<int64_t>(gathered.size() * sizeof(double));
      }
      MPI_Bcast(&my_offset, 1, MPI_INT64_T, 0, agg);
      my_offset += arank * block * static_cast<int64_t>(sizeof(double));
      records.push_back({v, step, rank, subfile, my_offset, block * static_cast<int64_t>(sizeof(double)), start, block,
                         *lo, *hi});
    }
  }
  if (is_agg && (::fsync(fd) != 0 || ::close(fd) != 0)) Die("close " + data_path);

  // Close: the index, once every subfile is complete.
  std::vector<bp::BlockRecord> all(rank == 0 ? records.size() * size : 0);
  const int rec_bytes = static_cast<int>(records.size() * sizeof(bp::BlockRecord));
  MPI_Gather(records.data(), rec_bytes, MPI_BYTE, all.data(), rec_bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::stable_sort(all.begin(), all.end(), [](const bp::BlockRecord& a, const bp::BlockRecord& b) {
      return std::tie(a.step, a.variable, a.writer) < std::tie(b.step, b.variable, b.writer);
    });
    bp::IndexHeader h{};
    std::memcpy(h.magic, bp::kMagic, sizeof h.magic);
    h.writers = size;
    h.steps = steps;
    h.variables = kVariables;
    h.subfiles = subfiles;
    h.blocks = static_cast<int64_t>(all.size());
    const std::string idx = dir + "/md.idx";
    int ifd = ::open(idx.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (ifd < 0) Die("create " + idx);
    WriteAll(ifd, &h, sizeof h, idx);
    WriteAll(ifd, all.data(), all.size() * sizeof(bp::BlockRecord), idx);
    if (::fsync(ifd) != 0 || ::close(ifd) != 0) Die("close " + idx);
    std::printf("bpwrite: %d steps x %d variables x %d ranks in %d subfiles, %.1f MiB, %.3f s\n", steps, kVariables,
                size, subfiles, static_cast<double>(steps) * kVariables * size * block * 8 / (1 << 20),
                MPI_Wtime() - t0);
  }
  MPI_Comm_free(&agg);
  MPI_Finalize();
  return 0;
}
