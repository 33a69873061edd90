#include <algorithm>

#include "modeselect/findings.h"

namespace bb::modeselect {
namespace {

// The vocabulary of the extractors. A new fact is one row here; the tests loop over the table.
constexpr FactInfo kFacts[] = {
    // How the job is launched (job script).
    {"launch.parallel", "a parallel step (srun, mpirun or mpiexec) runs the program as several tasks", "tasks"},
    {"launch.multi_step", "the job script runs more than one parallel step, one after another", "count"},
    {"launch.layout_changes",
     "a later step places its tasks on nodes differently from an earlier one (other distribution, "
     "task count or tasks per node)",
     ""},
    {"script.stage_in", "the job script copies input into the burst buffer before the run", ""},
    {"script.stage_out", "the job script copies results out of the burst buffer after the run", ""},
    {"script.rank_dirs", "the job script makes one directory per task or per node", "count"},
    {"script.reads_earlier_output", "a later step reads files an earlier step wrote", ""},
    {"script.one_writer_input",
     "one task (a one-task step, a batch-shell command) writes files a later step's tasks all read (value: "
     "their tasks)",
     "tasks"},

    // I/O interfaces (sources).
    {"io.posix", "POSIX I/O calls (open, read, write, pread, pwrite, lseek, close)", "count"},
    {"io.stdio", "C stdio or C++ streams (fopen, fwrite, fprintf, fread, std::ofstream)", "count"},
    {"io.fortran", "Fortran I/O statements (open, write, read, close)", "count"},
    {"io.python", "Python file I/O (open, read, write)", "count"},
    {"io.numpy", "NumPy file I/O (save, load, fromfile, tofile, memmap)", "count"},
    {"io.mpiio.independent", "independent MPI-IO calls (MPI_File_write_at, MPI_File_read, ...)", "count"},
    {"io.mpiio.collective", "collective MPI-IO calls (MPI_File_write_at_all, MPI_File_read_all, ...)", "count"},
    {"io.mpiio.set_view", "MPI_File_set_view: ranks see interleaved views of one file", "count"},
    {"io.mpiio.hints", "MPI-IO hints set (MPI_Info_set of cb_*, romio_* or striping keys)", "count"},
    {"io.hdf5", "HDF5 (H5Fcreate, H5Dwrite, h5py)", "count"},
    {"io.hdf5.parallel", "parallel HDF5 (H5Pset_fapl_mpio, H5Pset_dxpl_mpio, h5py driver='mpio')", "count"},
    {"io.netcdf", "NetCDF (nc_create, nc_put_var, netCDF4.Dataset)", "count"},
    {"io.netcdf.parallel", "parallel NetCDF (nc_create_par, NC_MPIIO, PnetCDF)", "count"},

    // Which files, and who uses them.
    {"file.per_rank",
     "file names are built from the rank (sprintf/format/f-string/concatenation with the rank): "
     "one file per task",
     "count"},
    {"file.per_node",
     "names are built from the node (SLURM_NODEID, hostname) or the task's slot on it (SLURM_LOCALID): one "
     "per node",
     "count"},
    {"file.shared", "every task opens the same file name: one shared file (N-1)", "count"},
    {"file.append", "files are opened for appending (O_APPEND, fopen \"a\", position='append')", "count"},
    {"file.create_excl", "files are created with O_CREAT|O_EXCL", "count"},
    {"file.direct", "files are opened with O_DIRECT", "count"},
    {"file.sync", "data is flushed to storage explicitly (fsync, fdatasync, MPI_File_sync, os.fsync)", "count"},
    {"file.read_other_rank",
     "a task reads a file another task wrote (name built from another rank, or one rank reads all)", "count"},
    {"file.read_shared_input", "every task reads the same input file", "count"},
    {"file.read_other_node",
     "of the reads of another task's files (mdtest -N, IOR -C/-Z, a path from another rank), the fraction on "
     "another node in the step's placement",
     "fraction"},
    {"file.write_then_read", "the program writes files and later reads them back (restart, verification, analysis)",
     "count"},

    // How data is accessed.
    {"access.small_writes", "writes of small records in a loop (value: the record size in bytes when known)", "bytes"},
    {"access.large_writes", "writes of large blocks (value: the block size in bytes when known)", "bytes"},
    {"access.small_reads", "reads of small records in a loop (value: the record size in bytes when known)", "bytes"},
    {"access.random", "random offsets (rand/random used for seeks or offsets, shuffled reads)", "count"},
    {"access.strided", "offsets interleave the ranks (offset from rank * block, size * block strides)", "count"},
    {"access.shuffle", "a dataset's samples or files are shuffled before reading (data loader)", "count"},

    // Metadata.
    {"meta.create_storm", "many files are created in a loop (value: files per task when known)", "count"},
    {"meta.stat_storm", "many stat/lstat/access/exists calls in a loop", "count"},
    {"meta.unlink_storm", "many files are removed in a loop", "count"},
    {"meta.mkdir_every_rank", "every task makes directories", "count"},
    {"meta.mkdir_one_rank", "one task (rank 0) makes the directories the others use", "count"},
    {"meta.dir_scan", "directories are listed (readdir, scandir, listdir, walk, glob, find)", "count"},
    {"meta.deep_tree", "a directory tree several levels deep is built or walked", "count"},
    {"meta.rename", "files are renamed", "count"},

    // Phases.
    {"sync.barrier_between_phases", "a barrier separates a write phase from a read phase", "count"},

    // IOR command lines.
    {"ior.run", "IOR runs", "tasks"},
    {"ior.file_per_proc", "IOR writes one file per task (-F)", ""},
    {"ior.shared_file", "IOR writes one shared file (no -F)", ""},
    {"ior.write", "IOR writes (-w, or neither -w nor -r)", ""},
    {"ior.read", "IOR reads (-r, or neither -w nor -r)", ""},
    {"ior.reorder", "IOR reads data another task wrote (-C, -Z or -Q shifts)", ""},
    {"ior.random", "IOR uses random offsets (-z)", ""},
    {"ior.collective", "IOR uses collective MPI-IO (-c)", ""},
    {"ior.api_mpiio", "IOR uses the MPIIO or HDF5 API", ""},
    {"ior.fsync", "IOR fsyncs (-e or -Y)", ""},
    {"ior.transfer_size", "IOR's transfer size (-t)", "bytes"},
    {"ior.block_size", "IOR's block size per task (-b)", "bytes"},
    {"ior.segments", "IOR's segment count (-s)", "count"},
    {"ior.stonewall", "IOR's write phase is time-bound (-D)", "seconds"},

    // mdtest command lines.
    {"mdtest.run", "mdtest runs", "tasks"},
    {"mdtest.unique_dir", "mdtest gives every task its own directory (-u)", ""},
    {"mdtest.shared_dir", "mdtest tasks work in one shared directory (no -u)", ""},
    {"mdtest.files_only", "mdtest works on files only (-F)", ""},
    {"mdtest.dirs_only", "mdtest works on directories only (-D)", ""},
    {"mdtest.items", "mdtest's items per task (-n), or per directory (-I)", "count"},
    {"mdtest.shift", "mdtest tasks stat/read/remove another task's items (-N stride)", "count"},
    {"mdtest.write_bytes", "mdtest writes this many bytes into each file (-w)", "bytes"},
    {"mdtest.read_bytes", "mdtest reads this many bytes from each file (-e)", "bytes"},
    {"mdtest.depth", "mdtest's tree depth (-z)", "count"},
    {"mdtest.stonewall", "mdtest's create phase is time-bound (-W)", "seconds"},

    // fio command lines and job files.
    {"fio.run", "fio runs", "count"},
    {"fio.seq_write", "fio writes sequentially (rw=write)", ""},
    {"fio.seq_read", "fio reads sequentially (rw=read)", ""},
    {"fio.rand_write", "fio writes at random offsets (rw=randwrite)", ""},
    {"fio.rand_read", "fio reads at random offsets (rw=randread)", ""},
    {"fio.mixed", "fio mixes reads and writes (rw=rw/readwrite/randrw)", ""},
    {"fio.shared_file", "fio's jobs share one file (filename= without a per-job part)", ""},
    {"fio.file_per_job", "fio gives every job its own file(s)", ""},
    {"fio.block_size", "fio's block size (bs=)", "bytes"},
    {"fio.numjobs", "fio's jobs per process (numjobs=)", "count"},
    {"fio.nrfiles", "fio's files per job (nrfiles=)", "count"},
    {"fio.size", "fio's size per job (size=)", "bytes"},
    {"fio.time_based", "fio runs for a fixed time (time_based with runtime=)", "seconds"},
    {"fio.fsync", "fio syncs (fsync=, fdatasync=, end_fsync=)", "count"},
    {"fio.direct", "fio uses O_DIRECT (direct=1)", ""},
    {"fio.filecreate", "fio's filecreate/filestat/filedelete engines (metadata)", ""},
};

}  // namespace

std::span<const FactInfo> Facts() { return kFacts; }

const FactInfo* FindFact(std::string_view name) {
  for (const FactInfo& f : kFacts) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::vector<const Finding*> StaticEvidence::Of(std::string_view fact) const {
  std::vector<const Finding*> out;
  for (const Finding& f : findings) {
    if (f.fact == fact) out.push_back(&f);
  }
  return out;
}

}  // namespace bb::modeselect
