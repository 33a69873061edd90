// The source scanner on C and C++ snippets: every case states all the findings it expects.
#include <catch2/catch.hpp>

#include "modeselect/static/lang/sources.h"
#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Render;
using testing::ScanOne;
using testing::Sorted;

using Case = testing::SnippetCase;

const Case kCases[] = {
    {"I/O in comments and strings does not count",
     Lang::kC,
     R"SRC(
int main(void) {
  // fd = open("x", O_CREAT | O_WRONLY);
  /* fopen("y", "a"); MPI_File_open(MPI_COMM_WORLD, "z", 0, 0, &fh); */
  const char *s = "write(fd, buf, 4096); mkdir(\"d\", 0755)";
  char c = '(';
  puts(s);
  return 0;
}
)SRC",
     {}},
    {"rank-indexed names with sprintf and snprintf reach open and fopen",
     Lang::kC,
     R"SRC(
#include <mpi.h>
int main(int argc, char **argv) {
  int rank;
  char name[64], other[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  sprintf(name, "out.%d", rank);
  int fd = open(name, O_WRONLY | O_CREAT | O_APPEND, 0644);
  snprintf(other, sizeof other, "log.%04d", rank);
  FILE *fp = fopen(other, "a");
  return 0;
}
)SRC",
     {"8 file.append 1", "8 file.per_rank 1", "8 io.posix 1", "10 file.append 1", "10 file.per_rank 1",
      "10 io.stdio 1"}},
    {"small writes in a counted loop, with the record size from a #define",
     Lang::kC,
     R"SRC(
#define REC 512
#define N 1000
void f(int fd, char *buf) {
  for (int i = 0; i < N; i++) {
    write(fd, buf, REC);
  }
  for (int i = 0; i < 10; ++i) pwrite(fd, buf, 1 << 20, (off_t)i << 20);
}
)SRC",
     {"6 access.small_writes 512", "6 io.posix 1", "8 access.large_writes 1048576", "8 io.posix 1"}},
    {"create storm: one file per iteration, count from a const",
     Lang::kC,
     R"SRC(
static const int kFiles = 250;
void f(int rank) {
  char p[256];
  for (int i = 0; i < kFiles; i++) {
    snprintf(p, sizeof(p), "d/%d/f%d", rank, i);
    int fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0600);
    close(fd);
  }
  for (int i = 0; i < kFiles; i++) { stat(p, &st); unlink(p); }
}
)SRC",
     {"7 file.create_excl 1", "7 io.posix 1", "7 meta.create_storm 250", "8 io.posix 1", "10 meta.stat_storm 250",
      "10 meta.unlink_storm 250"}},
    {"mkdir by every rank and by rank 0 only",
     Lang::kC,
     R"SRC(
int main(int argc, char **argv) {
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  mkdir("all", 0755);
  if (me == 0) {
    mkdir("shared", 0755);
  } else {
    mkdir("mine", 0755);
  }
  if (!me) mkdir("also_zero", 0755);
}
)SRC",
     {"5 meta.mkdir_every_rank 1", "7 meta.mkdir_one_rank 1", "9 meta.mkdir_every_rank 1", "11 meta.mkdir_one_rank 1"}},
    {"MPI-IO: shared file, collective and independent, views, hints, strided offsets",
     Lang::kC,
     R"SRC(
int main(int argc, char **argv) {
  int rank; MPI_File fh; MPI_Info info; double buf[1024];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Info_set(info, "cb_nodes", "4");
  MPI_File_open(MPI_COMM_WORLD, "field.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
  MPI_File_set_view(fh, (MPI_Offset)rank * 8192, MPI_DOUBLE, MPI_DOUBLE, "native", info);
  MPI_File_write_all(fh, buf, 1024, MPI_DOUBLE, MPI_STATUS_IGNORE);
  for (int i = 0; i < 100; i++)
    MPI_File_write_at(fh, (MPI_Offset)(i * 4 + rank) * 8, buf, 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_File_open(MPI_COMM_SELF, "own.dat", MPI_MODE_RDONLY, info, &fh);
}
)SRC",
     {"5 io.mpiio.hints 1", "6 file.shared 1", "7 access.strided 1", "7 io.mpiio.set_view 1", "8 io.mpiio.collective 1",
      "10 access.small_writes 8", "10 access.strided 1", "10 io.mpiio.independent 1"}},
    {"a write phase, a barrier, then reading the neighbour's file",
     Lang::kC,
     R"SRC(
int main(int argc, char **argv) {
  int rank, size; char name[128];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  sprintf(name, "ckpt.%d", rank);
  FILE *f = fopen(name, "wb");
  fclose(f);
  MPI_Barrier(MPI_COMM_WORLD);
  sprintf(name, "ckpt.%d", (rank + 1) % size);
  f = fopen(name, "rb");
  fclose(f);
}
)SRC",
     {"7 file.per_rank 1", "7 io.stdio 1", "8 io.stdio 1", "9 sync.barrier_between_phases 1", "11 file.per_rank 1",
      "11 file.read_other_rank 1", "11 file.write_then_read 1", "11 io.stdio 1", "12 io.stdio 1"}},
    {"rank 0 reads every rank's file in a loop over the task count",
     Lang::kC,
     R"SRC(
void gather(int rank, int nprocs) {
  char p[64];
  if (rank == 0) {
    for (int r = 0; r < nprocs; r++) {
      sprintf(p, "part.%d", r);
      FILE *f = fopen(p, "r");
    }
  }
}
int main(int argc, char **argv) {
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  gather(rank, nprocs);
}
)SRC",
     {"7 file.per_rank 1", "7 file.read_other_rank 1", "7 io.stdio 1"}},
    {"random offsets from rand() and a C++ distribution",
     Lang::kCpp,
     R"SRC(
#include <random>
void f(int fd, char *buf, long n) {
  std::mt19937 gen(1);
  std::uniform_int_distribution<long> pick(0, n);
  for (int i = 0; i < 64; i++) {
    lseek(fd, (rand() % n) * 4096, SEEK_SET);
    long off = pick(gen) * 4096;
    pwrite(fd, buf, 4096, off);
  }
}
)SRC",
     {"7 access.random 1", "7 io.posix 1", "9 access.random 1", "9 access.small_writes 4096", "9 io.posix 1"}},
    {"C++ streams: std::format and to_string names, ios::app, << in a loop",
     Lang::kCpp,
     R"SRC(
#include <format>
#include <fstream>
int main() {
  int rank = atoi(getenv("SLURM_PROCID"));
  std::ofstream log("log_" + std::to_string(rank) + ".txt", std::ios::app);
  for (int i = 0; i < 10; i++) log << i << '\n';
  std::string p = std::format("ckpt_{:05d}.bin", rank);
  std::ofstream out;
  out.open(p, std::ios::binary);
  std::ostringstream os;
  os << "part." << rank;
  std::ifstream in(os.str());
}
)SRC",
     {"6 file.append 1", "6 file.per_rank 1", "6 io.stdio 1", "7 access.small_writes 0", "7 io.stdio 1",
      "10 file.per_rank 1", "10 io.stdio 1", "13 file.per_rank 1", "13 io.stdio 1"}},
    {"raw strings, char literals and line splices are no code",
     Lang::kCpp,
     R"SRC(
const char *a = R"x(fopen("a", "w"); )" open(b) )x";
char q = '"'; int fd = open("real", O_RDONLY);
// a comment that continues \
   mkdir("hidden", 0755);
#define NAME "x" \
  mkdir("also_hidden", 0755)
)SRC",
     {"3 io.posix 1"}},
    {"HDF5 and NetCDF, serial and parallel",
     Lang::kC,
     R"SRC(
void f(MPI_Comm comm) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
  hid_t file = H5Fcreate("out.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  int ncid;
  nc_create_par("out.nc", NC_CLOBBER | NC_NETCDF4, comm, MPI_INFO_NULL, &ncid);
  nc_create("serial.nc", NC_CLOBBER, &ncid);
  ncmpi_put_vara_int_all(ncid, 0, start, count, data);
}
)SRC",
     {"3 io.hdf5 1", "4 io.hdf5 1", "4 io.hdf5.parallel 1", "5 file.shared 1", "5 io.hdf5 1", "7 file.shared 1",
      "7 io.netcdf 1", "7 io.netcdf.parallel 1", "8 io.netcdf 1", "9 io.netcdf 1"}},
    {"flags through a variable: O_DIRECT and fsync",
     Lang::kC,
     R"SRC(
void f(const char *p, char *buf) {
  int flags = O_WRONLY | O_DIRECT;
  int fd = open(p, flags);
  write(fd, buf, 1 << 22);
  fsync(fd);
  struct dirent *e; DIR *d = opendir(".");
  while ((e = readdir(d))) {}
  rename("a", "b");
}
)SRC",
     {"4 file.direct 1", "4 io.posix 1", "5 access.large_writes 4194304", "5 io.posix 1", "6 file.sync 1",
      "7 meta.dir_scan 1", "8 meta.dir_scan 1", "9 meta.rename 1"}},
    {"other ranks: rank^1 and size-1-rank are read, the terminal is no file",
     Lang::kC,
     R"SRC(
int main(int argc, char **argv) {
  int rank, np; char p[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  sprintf(p, "pair.%d", rank);
  FILE *w = fopen(p, "w");
  for (int i = 0; i < 8; i++) fprintf(stderr, "step %d\n", i);
  sprintf(p, "pair.%d", rank ^ 1);
  FILE *a = fopen(p, "r");
  sprintf(p, "pair.%d", np - 1 - rank);
  int fd = open(p, O_RDONLY);
  write(2, "x", 1);
}
)SRC",
     {"7 file.per_rank 1", "7 io.stdio 1", "10 file.per_rank 1", "10 file.read_other_rank 1",
      "10 file.write_then_read 1", "10 io.stdio 1", "12 file.per_rank 1", "12 file.read_other_rank 1",
      "12 file.write_then_read 1", "12 io.posix 1"}},
    {"guards: else of rank != 0, Fortran-style negation, shared input read by all",
     Lang::kC,
     R"SRC(
int main(int argc, char **argv) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    mkdir("x", 0755);
  } else {
    mkdir("y", 0755);
  }
  FILE *in = fopen("input.cfg", "r");
  if (rank == 0) { FILE *log = fopen("run.log", "w"); }
}
)SRC",
     {"6 meta.mkdir_every_rank 1", "8 meta.mkdir_one_rank 1", "10 file.read_shared_input 1", "10 io.stdio 1",
      "11 io.stdio 1"}},
};

TEST_CASE("C and C++ sources: facts, lines and values", "[modeselect]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    CHECK(Render(ScanOne(c.lang, c.text, testing::SnippetPath(c.lang))) == Sorted(c.expect));
  }
}

TEST_CASE("a helper in another file is attributed to the loop that calls it", "[modeselect]") {
  std::vector<SourceFile> files{{"main.c", Lang::kC, R"SRC(
#define STEPS 40
void put(int fd, const char *b, size_t n);
void touch(const char *path);
int main(int argc, char **argv) {
  char rec[128], p[64];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int s = 0; s < STEPS; s++) {
    put(3, rec, sizeof rec);
    sprintf(p, "f.%d.%d", rank, s);
    touch(p);
  }
  put(3, rec, 1 << 20);
}
)SRC"},
                                {"helpers.c", Lang::kC, R"SRC(
void put(int fd, const char *b, size_t n) {
  write(fd, b, n);
}
void touch(const char *path) {
  int fd = open(path, O_CREAT | O_WRONLY, 0644);
  close(fd);
}
)SRC"}};
  CHECK(Render(ScanSources(files), true) ==
        Sorted({"helpers.c:3 io.posix 1", "helpers.c:6 file.per_rank 1", "helpers.c:6 io.posix 1",
                "helpers.c:7 io.posix 1", "main.c:10 access.small_writes 128", "main.c:12 meta.create_storm 40"}));
}

}  // namespace
}  // namespace bb::modeselect
