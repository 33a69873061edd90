// HACC-IO style checkpoint: all ranks write their particles into ONE file through MPI-IO.
// Layout (as GenericIO's "one block per variable"): a 4 KiB header written by rank 0 (magic,
// number of ranks, particles of every rank), then variable by variable the values of all
// ranks, rank after rank. Each rank writes its part of every variable with an independent
// MPI_File_write_at; after closing, rank 0 checks the file size against the layout and every
// rank reads its own parts back and compares them.
//
// (The POSIX variant of HACC-IO writes one file per rank instead, fopen(FILE.<rank>); this
// one does not.)
//
// usage: hacc_io FILE PARTICLES_PER_RANK
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "particles.h"

namespace {

constexpr uint64_t kMagic = 0x48414343494f3031ull;  // "HACCIO01"
constexpr MPI_Offset kHeaderBytes = 4096;
constexpr int kVars = 9;
constexpr size_t kVarBytes[kVars] = {4, 4, 4, 4, 4, 4, 4, 8, 2};

void Fail(const std::string& what) {
  std::fprintf(stderr, "hacc_io: %s\n", what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

void Check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    Fail(std::string(what) + ": " + msg);
  }
}

// Every rank must see `path` before a collective open: a rank whose open fails leaves the
// others waiting inside MPI_File_open.
void RequireOnAllRanks(const std::string& path) {
  int seen = access(path.c_str(), F_OK) == 0, all = 0;
  MPI_Allreduce(&seen, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!seen) std::fprintf(stderr, "hacc_io: %s is not there\n", path.c_str());
  if (!all) MPI_Abort(MPI_COMM_WORLD, 2);
}

const void* VarData(const Particles& p, int v) {
  switch (v) {
    case 0: return p.xx.data();
    case 1: return p.yy.data();
    case 2: return p.zz.data();
    case 3: return p.vx.data();
    case 4: return p.vy.data();
    case 5: return p.vz.data();
    case 6: return p.phi.data();
    case 7: return p.pid.data();
    default: return p.mask.data();
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) Fail("usage: hacc_io FILE PARTICLES_PER_RANK");
  const std::string path = argv[1];
  const long long np = std::atoll(argv[2]) + rank % 3;  // slightly uneven, as after a rebalance

  std::vector<long long> counts(size);
  MPI_Allgather(&np, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
  const long long before = std::accumulate(counts.begin(), counts.begin() + rank, 0LL);
  const long long total = std::accumulate(counts.begin(), counts.end(), 0LL);
  Particles p = MakeParticles(before, static_cast<size_t>(np));

  RequireOnAllRanks(path.substr(0, path.find_last_of('/') + 1));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "access_style", "write_once");
  MPI_File fh;
  Check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh), "open");
  if (rank == 0) {
    std::vector<char> header(kHeaderBytes, 0);
    uint64_t fields[2] = {kMagic, static_cast<uint64_t>(size)};
    std::memcpy(header.data(), fields, sizeof fields);
    std::memcpy(header.data() + sizeof fields, counts.data(), counts.size() * sizeof(long long));
    Check(MPI_File_write_at(fh, 0, header.data(), static_cast<int>(kHeaderBytes), MPI_BYTE, MPI_STATUS_IGNORE),
          "header write");
  }
  MPI_Offset var_start = kHeaderBytes;
  double t0 = MPI_Wtime();
  for (int v = 0; v < kVars; ++v) {
    MPI_Offset at = var_start + static_cast<MPI_Offset>(before * kVarBytes[v]);
    int bytes = static_cast<int>(np * kVarBytes[v]);
    Check(MPI_File_write_at(fh, at, VarData(p, v), bytes, MPI_BYTE, MPI_STATUS_IGNORE), "variable write");
    var_start += static_cast<MPI_Offset>(total * kVarBytes[v]);
  }
  Check(MPI_File_close(&fh), "close");
  MPI_Info_free(&info);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();

  if (rank == 0) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) Fail("cannot stat " + path);
    if (st.st_size != var_start) {
      Fail(path + " has " + std::to_string(st.st_size) + " bytes; the layout needs " + std::to_string(var_start));
    }
    std::printf("hacc_io: %lld particles, %.1f MiB in %.3f s (%.1f MiB/s)\n", total, var_start / 1048576.0, t1 - t0,
                var_start / 1048576.0 / (t1 - t0));
  }

  // Read back this rank's parts and compare.
  RequireOnAllRanks(path);
  Check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "reopen");
  var_start = kHeaderBytes;
  long bad = 0;
  for (int v = 0; v < kVars; ++v) {
    std::vector<char> got(np * kVarBytes[v]);
    MPI_Offset at = var_start + static_cast<MPI_Offset>(before * kVarBytes[v]);
    Check(MPI_File_read_at(fh, at, got.data(), static_cast<int>(got.size()), MPI_BYTE, MPI_STATUS_IGNORE),
          "read back");
    if (std::memcmp(got.data(), VarData(p, v), got.size()) != 0) ++bad;
    var_start += static_cast<MPI_Offset>(total * kVarBytes[v]);
  }
  Check(MPI_File_close(&fh), "close after read");
  long all_bad = 0;
  MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (all_bad != 0) Fail(std::to_string(all_bad) + " variable blocks differ after reading them back");
  if (rank == 0) std::printf("hacc_io: checkpoint verified\n");
  MPI_Finalize();
  return 0;
}
