// The source scanner on Fortran (free and fixed form) and Python snippets.
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
    {"Fortran: comments and strings are no code, names are case-insensitive",
     Lang::kFortranFree,
     R"SRC(
program p
  ! open(unit=10, file='commented.dat')
  character(len=32) :: s = 'call mkdir(x) ; open(11, file="y")'
  print *, "write(12) x"
  OPEN(UNIT=13, FILE='real.dat', STATUS='REPLACE')
end program p
)SRC",
     {"6 io.fortran 1"}},
    {"Fortran: internal write of the rank into a name, & continuations, position='append'",
     Lang::kFortranFree,
     R"SRC(
program p
  use mpi
  integer :: myid, ierr, i
  character(len=128) :: fname
  real(8) :: rec(16)
  call MPI_COMM_RANK(MPI_COMM_WORLD, myid, ierr)
  write(fname, '(a,i6.6,a)') 'out_', &
       myid, '.dat'
  open(newunit=u, file=trim(fname), &
       form='unformatted', position='append')
  do i = 1, 500
    write(u) rec
  end do
  if (myid == 0) call execute_command_line('mkdir -p results')
end program p
)SRC",
     {"10 file.append 1", "10 file.per_rank 1", "10 io.fortran 1", "13 access.small_writes 128", "13 io.fortran 1",
      "15 meta.mkdir_one_rank 1"}},
    {"Fortran fixed form: c comments, column-6 continuation, labelled do",
     Lang::kFortranFixed,
     R"SRC(
      program p
c     open(unit=9, file='comment.dat')
*     write(9) x
      integer n
      parameter (n = 100)
      character*40 name
      do 10 i = 1, n
        write(name, 100) i
  100   format('f', i4.4)
        open(unit=20, file=name,
     &       status='new')
        close(20)
   10 continue
      end
)SRC",
     {"11 file.create_excl 1", "11 io.fortran 1", "11 meta.create_storm 100", "13 io.fortran 1"}},
    {"Fortran MPI-IO and parallel HDF5/NetCDF",
     Lang::kFortranFree,
     R"SRC(
subroutine io(comm)
  use mpi
  integer :: comm, fh, ierr, plist, ncid
  call mpi_file_open(comm, 'shared.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  call mpi_file_write_all(fh, buf, 10, MPI_DOUBLE_PRECISION, status, ierr)
  call h5pset_fapl_mpio_f(plist, comm, MPI_INFO_NULL, ierr)
  call h5fcreate_f('out.h5', H5F_ACC_TRUNC_F, file_id, ierr, access_prp=plist)
  ierr = nf90_create('out.nc', NF90_NETCDF4, ncid, comm=comm, info=MPI_INFO_NULL)
end subroutine io
)SRC",
     {"5 file.shared 1", "6 io.mpiio.collective 1", "7 io.hdf5 1", "7 io.hdf5.parallel 1", "8 file.shared 1",
      "8 io.hdf5 1", "9 file.shared 1", "9 io.netcdf 1", "9 io.netcdf.parallel 1"}},
    {"Python: comments and every string form are no code",
     Lang::kPython,
     R"SRC(
# open("commented", "w")
a = 'open("single", "w")'
b = """
np.save("triple.npy", x)
"""
c = r"os.makedirs(r'\raw')"
d = b'os.remove("bytes")'
e = f"{len('x')} os.listdir('.')"
with open("real.txt") as f:
    pass
)SRC",
     {"10 io.python 1"}},
    {"Python: rank from mpi4py and the environment in f-strings, format, % and str()",
     Lang::kPython,
     R"SRC(
import os
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank = comm.Get_rank()
r2 = int(os.environ["SLURM_PROCID"])
np.save(f"ckpt_{rank}.npy", data)
with open("log_{}.txt".format(r2), "a") as log:
    log.write("x\n")
open("part_%04d" % rank, "wb").close()
path = os.path.join("out", "f_" + str(comm.rank) + ".bin")
fh = open(path, "w")
)SRC",
     {"8 file.per_rank 1", "8 io.numpy 1", "9 file.append 1", "9 file.per_rank 1", "9 io.python 1", "10 io.python 1",
      "11 file.per_rank 1", "11 io.python 2", "13 file.per_rank 1", "13 io.python 1"}},
    {"Python: loops of small writes and creates, dir scans, shuffles, renames",
     Lang::kPython,
     R"SRC(
import os, glob, random
import numpy as np
N = 200
def run(rank):
    with open(f"log.{rank}", "w") as f:
        for i in range(N):
            f.write(f"{i}\n")
    for i in range(10, 60):
        np.save(f"s_{rank}_{i}.npy", x)
    for p in glob.glob("data/*.npy"):
        os.stat(p)
    names = os.listdir("data")
    random.shuffle(names)
    rng = np.random.default_rng()
    order = rng.permutation(len(names))
    os.rename("a", "b")
    for root, dirs, files in os.walk("tree"):
        pass
)SRC",
     {"6 io.python 1", "8 access.small_writes 0", "8 io.python 1", "10 io.numpy 1", "10 meta.create_storm 50",
      "11 meta.dir_scan 1", "12 meta.stat_storm 0", "13 meta.dir_scan 1", "14 access.shuffle 1", "16 access.shuffle 1",
      "17 meta.rename 1", "18 meta.deep_tree 1", "18 meta.dir_scan 1"}},
    {"Python: h5py mpio, netCDF4 parallel, MPI.File collective, barrier between phases",
     Lang::kPython,
     R"SRC(
import h5py
from netCDF4 import Dataset
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank = comm.rank
size = comm.size
f = h5py.File("out.h5", "w", driver="mpio", comm=comm)
ds = Dataset("out.nc", "w", parallel=True, comm=comm)
fh = MPI.File.Open(comm, "data.bin", MPI.MODE_CREATE | MPI.MODE_WRONLY)
fh.Write_at_all(rank * 4096, buf)
fh.Close()
comm.Barrier()
g = MPI.File.Open(comm, "data.bin", MPI.MODE_RDONLY)
g.Read_at(((rank + 1) % size) * 4096, buf)
)SRC",
     {"8 file.shared 1", "8 io.hdf5 1", "8 io.hdf5.parallel 1", "9 file.shared 1", "9 io.netcdf 1",
      "9 io.netcdf.parallel 1", "10 file.shared 1", "11 access.strided 1", "11 io.mpiio.collective 1",
      "13 sync.barrier_between_phases 1", "14 file.shared 1", "14 file.write_then_read 1", "15 access.strided 1",
      "15 io.mpiio.independent 1"}},
    {"Python: rank 0 reads every rank's file after a barrier; else-branch mkdir",
     Lang::kPython,
     R"SRC(
import os
import numpy as np
from mpi4py import MPI
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
rank = comm.Get_rank()
size = comm.Get_size()
np.save(f"part_{rank}.npy", x)
comm.barrier()
if rank == 0:
    for r in range(size):
        parts.append(np.load(f"part_{r}.npy"))
else:
    os.mkdir(f"d{rank}")
)SRC",
     {"9 file.per_rank 1", "9 io.numpy 1", "10 sync.barrier_between_phases 1", "13 file.per_rank 1",
      "13 file.read_other_rank 1", "13 file.write_then_read 1", "13 io.numpy 1", "15 meta.mkdir_every_rank 1"}},
};

TEST_CASE("Fortran and Python sources: facts, lines and values", "[modeselect]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    CHECK(Render(ScanOne(c.lang, c.text)) == Sorted(c.expect));
  }
}

TEST_CASE("a Python helper in another module is attributed to the caller's loop", "[modeselect]") {
  std::vector<SourceFile> files{{"train.py", Lang::kPython, R"SRC(
from util import save_shard
import os
rank = int(os.getenv("PMI_RANK"))
for epoch in range(8):
    save_shard(rank, epoch)
)SRC"},
                                {"util.py", Lang::kPython, R"SRC(
import numpy as np
def save_shard(rank, epoch):
    np.save(f"shard_{rank}_{epoch}.npy", np.zeros(4))
)SRC"}};
  CHECK(Render(ScanSources(files), true) ==
        Sorted({"train.py:6 meta.create_storm 8", "util.py:4 file.per_rank 1", "util.py:4 io.numpy 1"}));
}

}  // namespace
}  // namespace bb::modeselect
