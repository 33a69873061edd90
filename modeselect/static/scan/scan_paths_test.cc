// Path builders: a helper that formats a file name into a parameter or returns one gives each
// caller the name built from that call's own arguments. Every case states all the findings it
// expects; the pairs differ only in the rank a builder is called with.
#include <catch2/catch.hpp>

#include "modeselect/static/lang/sources.h"
#include "modeselect/static/test_util.h"

namespace bb::modeselect {
namespace {

using testing::Render;
using testing::ScanOne;
using testing::Sorted;

using Case = testing::SnippetCase;

const Case kC[] = {
    {"C: an out-parameter builder called for the task's own rank and for the next task's",
     Lang::kC,
     R"SRC(
static void ckpt_path(char *buf, size_t len, const char *dir, int r) {
  snprintf(buf, len, "%s/ckpt_%04d.dat", dir, r);
}
int main(int argc, char **argv) {
  int rank, size; char mine[256], partner[256];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ckpt_path(mine, sizeof mine, argv[1], rank);
  ckpt_path(partner, sizeof partner, argv[1], (rank + 1) % size);
  int fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  MPI_Barrier(MPI_COMM_WORLD);
  fd = open(partner, O_RDONLY);
}
)SRC",
     {"11 file.per_rank 1", "11 io.posix 1", "12 sync.barrier_between_phases 1", "13 file.per_rank 1",
      "13 file.read_other_rank 1", "13 file.write_then_read 1", "13 io.posix 1"}},
    {"C: the same builder called twice with the task's own rank reads back its own file",
     Lang::kC,
     R"SRC(
static void ckpt_path(char *buf, size_t len, const char *dir, int r) {
  snprintf(buf, len, "%s/ckpt_%04d.dat", dir, r);
}
int main(int argc, char **argv) {
  int rank, size; char mine[256], partner[256];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ckpt_path(mine, sizeof mine, argv[1], rank);
  ckpt_path(partner, sizeof partner, argv[1], rank);
  int fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  MPI_Barrier(MPI_COMM_WORLD);
  fd = open(partner, O_RDONLY);
}
)SRC",
     {"11 file.per_rank 1", "11 io.posix 1", "12 sync.barrier_between_phases 1", "13 file.per_rank 1",
      "13 file.write_then_read 1", "13 io.posix 1"}},
    {"C: builders called with rank^1, size-1-rank, rank-1 and every rank; one whose name has no rank",
     Lang::kC,
     R"SRC(
void name_of(char *out, int r) { sprintf(out, "pair.%d", r); }
void fixed(char *out, int r) { strcpy(out, "input.cfg"); }
int main(int argc, char **argv) {
  int rank, np; char p[64], q[64], s[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  name_of(p, rank);
  FILE *w = fopen(p, "w");
  name_of(q, rank ^ 1);
  FILE *a = fopen(q, "r");
  name_of(q, np - 1 - rank);
  FILE *b = fopen(q, "r");
  name_of(q, rank - 1);
  FILE *c = fopen(q, "r");
  for (int r = 0; r < np; r++) {
    name_of(q, r);
    FILE *d = fopen(q, "r");
  }
  fixed(s, rank);
  FILE *e = fopen(s, "r");
}
)SRC",
     {"9 file.per_rank 1",         "9 io.stdio 1",  "11 file.per_rank 1",          "11 file.read_other_rank 1",
      "11 file.write_then_read 1", "11 io.stdio 1", "13 file.per_rank 1",          "13 file.read_other_rank 1",
      "13 file.write_then_read 1", "13 io.stdio 1", "15 file.per_rank 1",          "15 file.read_other_rank 1",
      "15 file.write_then_read 1", "15 io.stdio 1", "18 file.per_rank 1",          "18 file.read_other_rank 1",
      "18 file.write_then_read 1", "18 io.stdio 1", "21 file.read_shared_input 1", "21 io.stdio 1"}},
    {"C: a builder made of strcpy and strcat around another builder",
     Lang::kC,
     R"SRC(
void leaf(char *out, int r) { sprintf(out, "part.%d", r); }
void full(char *out, const char *dir, int r) {
  char l[32];
  leaf(l, r);
  strcpy(out, dir);
  strcat(out, "/");
  strcat(out, l);
}
int main(int argc, char **argv) {
  int rank, np; char a[64], b[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  full(a, argv[1], rank);
  full(b, argv[1], (rank + 1) % np);
  int fd = open(a, O_CREAT | O_WRONLY, 0644);
  fd = open(b, O_RDONLY);
}
)SRC",
     {"16 file.per_rank 1", "16 io.posix 1", "17 file.per_rank 1", "17 file.read_other_rank 1",
      "17 file.write_then_read 1", "17 io.posix 1"}},
    {"C: builders three calls below the caller are followed, a fourth is not; mutual recursion ends",
     Lang::kC,
     R"SRC(
void k3(char *o, int r) { sprintf(o, "three.%d", r); }
void k2(char *o, int r) { k3(o, r); }
void k1(char *o, int r) { k2(o, r); }
void l4(char *o, int r) { sprintf(o, "four.%d", r); }
void l3(char *o, int r) { l4(o, r); }
void l2(char *o, int r) { l3(o, r); }
void l1(char *o, int r) { l2(o, r); }
void ping(char *o, int r) { if (r < 0) pong(o, r); else sprintf(o, "ping.%d", r); }
void pong(char *o, int r) { ping(o, r); }
int main(int argc, char **argv) {
  int rank, np; char a[64], b[64], c[64], d[64];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  k1(a, rank);
  k1(b, (rank + 1) % np);
  int fd = open(a, O_CREAT | O_WRONLY, 0644);
  fd = open(b, O_RDONLY);
  l1(c, rank);
  fd = open(c, O_CREAT | O_WRONLY, 0644);
  ping(d, rank);
  fd = open(d, O_CREAT | O_WRONLY, 0644);
  pong(d, rank ^ 1);
  fd = open(d, O_RDONLY);
}
)SRC",
     {"17 file.per_rank 1", "17 io.posix 1", "18 file.per_rank 1", "18 file.read_other_rank 1",
      "18 file.write_then_read 1", "18 io.posix 1", "20 io.posix 1", "22 file.per_rank 1", "22 io.posix 1",
      "24 file.per_rank 1", "24 file.read_other_rank 1", "24 file.write_then_read 1", "24 io.posix 1"}},
    {"C++: builders returning a std::string, one built with a string stream",
     Lang::kCpp,
     R"SRC(
static std::string dir = "ckpt";
std::string path_of(int r) { return dir + "/ckpt." + std::to_string(r); }
std::string via_stream(int r) {
  std::ostringstream os;
  os << "log." << r;
  return os.str();
}
int main(int argc, char **argv) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::ofstream out(path_of(rank));
  std::string partner = path_of((rank + 1) % size);
  std::ifstream in(partner);
  std::ofstream log(via_stream(rank));
  std::ifstream back(via_stream(size - 1 - rank));
}
)SRC",
     {"13 file.per_rank 1", "13 io.stdio 1", "15 file.per_rank 1", "15 file.read_other_rank 1",
      "15 file.write_then_read 1", "15 io.stdio 1", "16 file.per_rank 1", "16 io.stdio 1", "17 file.per_rank 1",
      "17 file.read_other_rank 1", "17 file.write_then_read 1", "17 io.stdio 1"}},
    {"C++: the same builders called with the task's own rank only, and one whose name has no rank",
     Lang::kCpp,
     R"SRC(
std::string path_of(int r) { return "ckpt." + std::to_string(r); }
std::string config(int r) { return std::string("run.cfg"); }
int main(int argc, char **argv) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::ofstream out(path_of(rank));
  std::string again = path_of(rank);
  std::ifstream in(again);
  std::ifstream cfg(config(rank));
}
)SRC",
     {"7 file.per_rank 1", "7 io.stdio 1", "9 file.per_rank 1", "9 file.write_then_read 1", "9 io.stdio 1",
      "10 file.read_shared_input 1", "10 io.stdio 1"}},
    {"C++: a reference parameter is the caller's variable, a parameter taken by value is a copy",
     Lang::kCpp,
     R"SRC(
void name_of(std::string& out, int r) { out = "part." + std::to_string(r); }
std::string with_suffix(std::string base, int r) {
  base += ".tmp";
  return base + std::to_string(r);
}
int main(int argc, char **argv) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string mine, theirs;
  std::string cfg = "run.cfg";
  name_of(mine, rank);
  name_of(theirs, (rank + 1) % size);
  std::ofstream out(mine);
  std::ifstream in(theirs);
  std::ofstream tmp(with_suffix(cfg, rank));
  std::ifstream c(cfg);
}
)SRC",
     {"15 file.per_rank 1", "15 io.stdio 1", "16 file.per_rank 1", "16 file.read_other_rank 1",
      "16 file.write_then_read 1", "16 io.stdio 1", "17 file.per_rank 1", "17 io.stdio 1",
      "18 file.read_shared_input 1", "18 io.stdio 1"}},
};

const Case kFortranPython[] = {
    {"Fortran: a subroutine writes the name into its dummy argument, called for the partner",
     Lang::kFortranFree,
     R"SRC(
program buddy
  use mpi
  integer :: me, np, ierr, u, v
  character(len=256) :: mine, partner
  call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
  call ckpt_name(mine, me)
  call ckpt_name(partner, mod(me + 1, np))
  open(newunit=u, file=trim(mine), form='unformatted', status='replace')
  open(newunit=v, file=trim(partner), form='unformatted', status='old', action='read')
contains
  subroutine ckpt_name(fname, r)
    character(len=*), intent(out) :: fname
    integer, intent(in) :: r
    write(fname, '(a,i6.6,a)') 'ckpt_', r, '.dat'
  end subroutine ckpt_name
end program buddy
)SRC",
     {"10 file.per_rank 1", "10 io.fortran 1", "11 file.per_rank 1", "11 file.read_other_rank 1",
      "11 file.write_then_read 1", "11 io.fortran 1"}},
    {"Fortran: function builders (the name, result(x), a character function), called for the partner",
     Lang::kFortranFree,
     R"SRC(
program buddy
  use mpi
  integer :: me, np, ierr, u, v
  call mpi_comm_rank(MPI_COMM_WORLD, me, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, np, ierr)
  open(newunit=u, file=trim(by_name(me)), form='unformatted', status='replace')
  open(newunit=v, file=trim(by_name(mod(me + 1, np))), form='unformatted', status='old', action='read')
  open(newunit=u, file=by_result(me), form='unformatted', status='replace')
  open(newunit=v, file=by_result(modulo(me - 1, np)), form='unformatted', status='old', action='read')
  open(newunit=u, file=trim(typed(me)), form='unformatted', status='replace')
  open(newunit=v, file=trim(typed(me)), form='unformatted', status='old', action='read')
contains
  function by_name(r)
    integer, intent(in) :: r
    character(len=64) :: by_name
    write(by_name, '(a,i6.6,a)') 'name_', r, '.dat'
  end function by_name
  function by_result(r) result(s)
    integer, intent(in) :: r
    character(len=64) :: s, num
    write(num, '(i0)') r
    s = 'result_' // trim(num) // '.dat'
  end function by_result
  character(len=64) function typed(r)
    integer, intent(in) :: r
    write(typed, '(a,i6.6,a)') 'typed_', r, '.dat'
  end function typed
end program buddy
)SRC",
     {"7 file.per_rank 1", "7 io.fortran 1", "8 file.per_rank 1", "8 file.read_other_rank 1",
      "8 file.write_then_read 1", "8 io.fortran 1", "9 file.per_rank 1", "9 io.fortran 1", "10 file.per_rank 1",
      "10 file.read_other_rank 1", "10 file.write_then_read 1", "10 io.fortran 1", "11 file.per_rank 1",
      "11 io.fortran 1", "12 file.per_rank 1", "12 file.write_then_read 1", "12 io.fortran 1"}},
    {"Python: a helper returns an f-string, called for the next task's rank and for every rank",
     Lang::kPython,
     R"SRC(
import os
from mpi4py import MPI
d = os.environ["CKPT_DIR"]
def path(r):
    return f"{d}/ckpt.{r}"
rank = MPI.COMM_WORLD.Get_rank()
size = MPI.COMM_WORLD.Get_size()
with open(path(rank), "wb") as f:
    f.write(b"x" * (1 << 20))
partner = path((rank + 1) % size)
with open(partner, "rb") as g:
    g.read()
for r in range(size):
    open(path(r=r), "rb").read()
)SRC",
     {"9 file.per_rank 1", "9 io.python 1", "10 io.python 1", "12 file.per_rank 1", "12 file.read_other_rank 1",
      "12 file.write_then_read 1", "12 io.python 1", "13 io.python 1", "15 file.per_rank 1",
      "15 file.read_other_rank 1", "15 file.write_then_read 1", "15 io.python 2"}},
    {"Python: the helpers called with the task's own rank only; a helper whose name has no rank",
     Lang::kPython,
     R"SRC(
import os
rank = int(os.environ["SLURM_PROCID"])
def path(r):
    return os.path.join("ckpt", f"part.{r}")
def config(r):
    return "run.cfg"
with open(path(rank), "wb") as f:
    f.write(b"x" * (1 << 20))
with open(path(rank), "rb") as g:
    g.read()
with open(config(rank)) as h:
    h.read()
)SRC",
     {"8 file.per_rank 1", "8 io.python 1", "9 io.python 1", "10 file.per_rank 1", "10 file.write_then_read 1",
      "10 io.python 1", "11 io.python 1", "12 file.read_shared_input 1", "12 io.python 1", "13 io.python 1"}},
    {"Python: a builder calling builders, for the task's own rank and the next task's",
     Lang::kPython,
     R"SRC(
import os
import numpy as np
rank = int(os.environ["SLURM_PROCID"])
size = int(os.environ["SLURM_NTASKS"])
def base():
    return os.environ.get("RUN_DIR", "run")
def shard(r):
    return os.path.join(base(), f"shard_{r:05d}.npy")
np.save(shard(rank), np.zeros(4))
y = np.load(shard((rank + 1) % size))
)SRC",
     {"10 file.per_rank 1", "10 io.numpy 1", "11 file.per_rank 1", "11 file.read_other_rank 1",
      "11 file.write_then_read 1", "11 io.numpy 1"}},
};

TEST_CASE("path builders: C and C++ out-parameters and return values", "[modeselect]") {
  for (const Case& c : kC) {
    INFO(c.name);
    CHECK(Render(ScanOne(c.lang, c.text)) == Sorted(c.expect));
  }
}

TEST_CASE("path builders: Fortran subroutines and functions, Python returns", "[modeselect]") {
  for (const Case& c : kFortranPython) {
    INFO(c.name);
    CHECK(Render(ScanOne(c.lang, c.text)) == Sorted(c.expect));
  }
}

// main.c names its own checkpoint and a partner's through a builder in paths.c.
std::vector<SourceFile> PartnerJob(const std::string& partner_rank) {
  std::string main = R"SRC(
void ckpt_path(char *buf, size_t len, const char *dir, int r);
int main(int argc, char **argv) {
  int rank, size; char mine[256], partner[256];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ckpt_path(mine, sizeof mine, argv[1], rank);
  ckpt_path(partner, sizeof partner, argv[1], PARTNER);
  int fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  fd = open(partner, O_RDONLY);
}
)SRC";
  main.replace(main.find("PARTNER"), 7, partner_rank);
  return {{"main.c", Lang::kC, main}, {"paths.c", Lang::kC, R"SRC(
void ckpt_path(char *buf, size_t len, const char *dir, int r) {
  snprintf(buf, len, "%s/ckpt_%04d.dat", dir, r);
}
)SRC"}};
}

TEST_CASE("a builder in another file: the partner's rank reads another task's file, the own rank does not",
          "[modeselect]") {
  std::vector<std::string> facts = {"main.c:9 file.per_rank 1", "main.c:9 io.posix 1", "main.c:10 file.per_rank 1",
                                    "main.c:10 file.write_then_read 1", "main.c:10 io.posix 1"};
  for (const char* own : {"rank", "(rank)"}) {
    INFO(own);
    CHECK(Render(ScanSources(PartnerJob(own)), true) == Sorted(facts));
  }
  facts.push_back("main.c:10 file.read_other_rank 1");
  for (const char* other : {"(rank + 1) % size", "rank ^ 1", "size - 1 - rank", "(rank + size - 1) % size"}) {
    INFO(other);
    CHECK(Render(ScanSources(PartnerJob(other)), true) == Sorted(facts));
  }
}

}  // namespace
}  // namespace bb::modeselect
