#include "modeselect/static/scan/scan_ops.h"

#include <cctype>

#include "modeselect/static/text.h"

namespace bb::modeselect::scan {
namespace {

using O = Op;
using A = Api;
using M = ModeStyle;
constexpr uint8_t C = kLangC, F = kLangF, P = kLangPy, CF = kLangC | kLangF;
constexpr int8_t R = kReceiver;

// clang-format off
constexpr OpInfo kOps[] = {
    // POSIX.
    {.name = "open", .langs = C, .method = false, .op = O::kOpen, .api = A::kPosix, .mode = M::kOflags, .name_arg = 0, .mode_arg = 1},
    {.name = "open64", .langs = C, .method = false, .op = O::kOpen, .api = A::kPosix, .mode = M::kOflags, .name_arg = 0, .mode_arg = 1},
    {.name = "openat", .langs = C, .method = false, .op = O::kOpen, .api = A::kPosix, .mode = M::kOflags, .name_arg = 1, .mode_arg = 2},
    {.name = "creat", .langs = C, .method = false, .op = O::kOpen, .api = A::kPosix, .mode = M::kCreate, .name_arg = 0},
    {.name = "close", .langs = C, .method = false, .op = O::kClose, .api = A::kPosix, .handle_arg = 0},
    {.name = "write", .langs = C, .method = false, .op = O::kWrite, .api = A::kPosix, .handle_arg = 0, .size_arg = 2},
    {.name = "pwrite", .langs = C, .method = false, .op = O::kWrite, .api = A::kPosix, .handle_arg = 0, .size_arg = 2, .offset_arg = 3},
    {.name = "pwrite64", .langs = C, .method = false, .op = O::kWrite, .api = A::kPosix, .handle_arg = 0, .size_arg = 2, .offset_arg = 3},
    {.name = "writev", .langs = C, .method = false, .op = O::kWrite, .api = A::kPosix, .handle_arg = 0},
    {.name = "read", .langs = C, .method = false, .op = O::kRead, .api = A::kPosix, .handle_arg = 0, .size_arg = 2},
    {.name = "pread", .langs = C, .method = false, .op = O::kRead, .api = A::kPosix, .handle_arg = 0, .size_arg = 2, .offset_arg = 3},
    {.name = "pread64", .langs = C, .method = false, .op = O::kRead, .api = A::kPosix, .handle_arg = 0, .size_arg = 2, .offset_arg = 3},
    {.name = "readv", .langs = C, .method = false, .op = O::kRead, .api = A::kPosix, .handle_arg = 0},
    {.name = "lseek", .langs = C, .method = false, .op = O::kSeek, .api = A::kPosix, .handle_arg = 0, .offset_arg = 1},
    {.name = "lseek64", .langs = C, .method = false, .op = O::kSeek, .api = A::kPosix, .handle_arg = 0, .offset_arg = 1},
    {.name = "fsync", .langs = C, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "fdatasync", .langs = C, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "sync_file_range", .langs = C, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "stat", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "lstat", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "fstatat", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 1},
    {.name = "statx", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 1},
    {.name = "access", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "faccessat", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 1},
    {.name = "unlink", .langs = C, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "unlinkat", .langs = C, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 1},
    {.name = "remove", .langs = C, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "remove_all", .langs = C, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "rmdir", .langs = C, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "mkdir", .langs = C, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 0},
    {.name = "mkdirat", .langs = C, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 1},
    {.name = "create_directory", .langs = C, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 0},
    {.name = "create_directories", .langs = C, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 0},
    {.name = "opendir", .langs = C, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "readdir", .langs = C, .method = false, .op = O::kDirScan, .api = A::kNone},
    {.name = "scandir", .langs = C, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "glob", .langs = C, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "directory_iterator", .langs = C, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "recursive_directory_iterator", .langs = C, .method = false, .op = O::kDirWalk, .api = A::kNone, .name_arg = 0},
    {.name = "nftw", .langs = C, .method = false, .op = O::kDirWalk, .api = A::kNone, .name_arg = 0},
    {.name = "ftw", .langs = C, .method = false, .op = O::kDirWalk, .api = A::kNone, .name_arg = 0},
    {.name = "fts_open", .langs = C, .method = false, .op = O::kDirWalk, .api = A::kNone},
    {.name = "exists", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "file_size", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "is_regular_file", .langs = C, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "rename", .langs = C, .method = false, .op = O::kRename, .api = A::kNone, .name_arg = 0},
    {.name = "renameat", .langs = C, .method = false, .op = O::kRename, .api = A::kNone, .name_arg = 1},
    {.name = "system", .langs = C, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "shuffle", .langs = C, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "random_shuffle", .langs = C, .method = false, .op = O::kShuffle, .api = A::kNone},
    // C stdio and C++ streams.
    {.name = "fopen", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kFopen, .name_arg = 0, .mode_arg = 1},
    {.name = "fopen64", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kFopen, .name_arg = 0, .mode_arg = 1},
    {.name = "freopen", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kFopen, .name_arg = 0, .mode_arg = 1},
    {.name = "fclose", .langs = C, .method = false, .op = O::kClose, .api = A::kStdio, .handle_arg = 0},
    {.name = "fwrite", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 3, .size_arg = 1, .count_arg = 2},
    {.name = "fread", .langs = C, .method = false, .op = O::kRead, .api = A::kStdio, .handle_arg = 3, .size_arg = 1, .count_arg = 2},
    {.name = "fprintf", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 0, .text = true},
    {.name = "vfprintf", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 0, .text = true},
    {.name = "fputs", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 1, .text = true},
    {.name = "fputc", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 1, .text = true},
    {.name = "putc", .langs = C, .method = false, .op = O::kWrite, .api = A::kStdio, .handle_arg = 1, .text = true},
    {.name = "fgets", .langs = C, .method = false, .op = O::kRead, .api = A::kStdio, .handle_arg = 2, .text = true},
    {.name = "fgetc", .langs = C, .method = false, .op = O::kRead, .api = A::kStdio, .handle_arg = 0, .text = true},
    {.name = "fscanf", .langs = C, .method = false, .op = O::kRead, .api = A::kStdio, .handle_arg = 0, .text = true},
    {.name = "getline", .langs = C, .method = false, .op = O::kRead, .api = A::kStdio, .handle_arg = 0, .text = true},
    {.name = "fseek", .langs = C, .method = false, .op = O::kSeek, .api = A::kStdio, .handle_arg = 0, .offset_arg = 1},
    {.name = "fseeko", .langs = C, .method = false, .op = O::kSeek, .api = A::kStdio, .handle_arg = 0, .offset_arg = 1},
    {.name = "ofstream", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kIos, .name_arg = 0, .mode_arg = 1},
    {.name = "ifstream", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kIos, .name_arg = 0, .mode_arg = 1},
    {.name = "fstream", .langs = C, .method = false, .op = O::kOpen, .api = A::kStdio, .mode = M::kIos, .name_arg = 0, .mode_arg = 1},
    {.name = "open", .langs = C, .method = true, .op = O::kOpen, .api = A::kStdio, .mode = M::kIos, .name_arg = 0, .mode_arg = 1},
    {.name = "write", .langs = C, .method = true, .op = O::kWrite, .api = A::kStdio, .handle_arg = R, .size_arg = 1},
    {.name = "read", .langs = C, .method = true, .op = O::kRead, .api = A::kStdio, .handle_arg = R, .size_arg = 1},
    {.name = "close", .langs = C, .method = true, .op = O::kClose, .api = A::kStdio, .handle_arg = R},
    {.name = "seekp", .langs = C, .method = true, .op = O::kSeek, .api = A::kStdio, .handle_arg = R, .offset_arg = 0},
    {.name = "seekg", .langs = C, .method = true, .op = O::kSeek, .api = A::kStdio, .handle_arg = R, .offset_arg = 0},
    // String building that can carry a rank into a file name.
    {.name = "sprintf", .langs = C, .method = false, .op = O::kFormat, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "vsprintf", .langs = C, .method = false, .op = O::kFormat, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "asprintf", .langs = C, .method = false, .op = O::kFormat, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "snprintf", .langs = C, .method = false, .op = O::kFormat, .api = A::kNone, .mode_arg = 2, .out_arg = 0},
    {.name = "vsnprintf", .langs = C, .method = false, .op = O::kFormat, .api = A::kNone, .mode_arg = 2, .out_arg = 0},
    {.name = "strcpy", .langs = C, .method = false, .op = O::kCopyStr, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "strncpy", .langs = C, .method = false, .op = O::kCopyStr, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "strcat", .langs = C, .method = false, .op = O::kCopyStr, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    {.name = "strncat", .langs = C, .method = false, .op = O::kCopyStr, .api = A::kNone, .mode_arg = 1, .out_arg = 0},
    // MPI (C and Fortran bindings share argument positions; Fortran adds ierr at the end).
    {.name = "MPI_File_open", .langs = CF, .method = false, .op = O::kOpen, .api = A::kMpiio, .mode = M::kMpiAmode, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .out_arg = 4},
    {.name = "MPI_File_close", .langs = CF, .method = false, .op = O::kClose, .api = A::kNone, .handle_arg = 0},
    {.name = "MPI_File_set_view", .langs = CF, .method = false, .op = O::kSetView, .api = A::kMpiio, .handle_arg = 0, .offset_arg = 1},
    {.name = "MPI_Info_set", .langs = CF, .method = false, .op = O::kInfoSet, .api = A::kMpiio},
    {.name = "MPI_File_sync", .langs = CF, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "MPI_File_seek", .langs = CF, .method = false, .op = O::kSeek, .api = A::kNone, .handle_arg = 0, .offset_arg = 1},
    {.name = "MPI_File_seek_shared", .langs = CF, .method = false, .op = O::kSeek, .api = A::kNone, .handle_arg = 0, .offset_arg = 1},
    {.name = "MPI_File_delete", .langs = CF, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "MPI_Barrier", .langs = CF, .method = false, .op = O::kBarrier, .api = A::kNone},
    {.name = "MPI_Comm_rank", .langs = CF, .method = false, .op = O::kRankOut, .api = A::kNone, .out_arg = 1},
    {.name = "MPI_Comm_size", .langs = CF, .method = false, .op = O::kSizeOut, .api = A::kNone, .out_arg = 1},
    // HDF5 and NetCDF (other H5*, nc_*, nf90_*, ncmpi_* calls count by prefix).
    {.name = "H5Fcreate", .langs = C, .method = false, .op = O::kOpen, .api = A::kHdf5, .mode = M::kH5Create, .name_arg = 0, .mode_arg = 1},
    {.name = "H5Fopen", .langs = C, .method = false, .op = O::kOpen, .api = A::kHdf5, .mode = M::kH5Open, .name_arg = 0, .mode_arg = 1},
    {.name = "h5fcreate_f", .langs = F, .method = false, .op = O::kOpen, .api = A::kHdf5, .mode = M::kH5Create, .name_arg = 0, .mode_arg = 1},
    {.name = "h5fopen_f", .langs = F, .method = false, .op = O::kOpen, .api = A::kHdf5, .mode = M::kH5Open, .name_arg = 0, .mode_arg = 1},
    {.name = "H5Pset_fapl_mpio", .langs = CF, .method = false, .op = O::kParallel, .api = A::kHdf5},
    {.name = "H5Pset_dxpl_mpio", .langs = CF, .method = false, .op = O::kParallel, .api = A::kHdf5},
    {.name = "h5pset_fapl_mpio_f", .langs = F, .method = false, .op = O::kParallel, .api = A::kHdf5},
    {.name = "h5pset_dxpl_mpio_f", .langs = F, .method = false, .op = O::kParallel, .api = A::kHdf5},
    {.name = "H5Dwrite", .langs = C, .method = false, .op = O::kWrite, .api = A::kHdf5},
    {.name = "H5Dread", .langs = C, .method = false, .op = O::kRead, .api = A::kHdf5},
    {.name = "h5dwrite_f", .langs = F, .method = false, .op = O::kWrite, .api = A::kHdf5},
    {.name = "h5dread_f", .langs = F, .method = false, .op = O::kRead, .api = A::kHdf5},
    {.name = "nc_create", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 0, .mode_arg = 1},
    {.name = "nc_open", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcOpen, .name_arg = 0, .mode_arg = 1},
    {.name = "nc_create_par", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 0, .mode_arg = 1, .comm_arg = 2, .parallel = true},
    {.name = "nc_open_par", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcOpen, .name_arg = 0, .mode_arg = 1, .comm_arg = 2, .parallel = true},
    {.name = "ncmpi_create", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .parallel = true},
    {.name = "ncmpi_open", .langs = C, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcOpen, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .parallel = true},
    {.name = "nf90_create", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 0, .mode_arg = 1, .name_kw = "path", .mode_kw = "cmode"},
    {.name = "nf90_open", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcOpen, .name_arg = 0, .mode_arg = 1, .name_kw = "path", .mode_kw = "mode"},
    {.name = "nf_create_par", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 0, .mode_arg = 1, .comm_arg = 2, .parallel = true},
    {.name = "nf_open_par", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcOpen, .name_arg = 0, .mode_arg = 1, .comm_arg = 2, .parallel = true},
    {.name = "nfmpi_create", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .parallel = true},
    {.name = "nf90mpi_create", .langs = F, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNcCreate, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .parallel = true},
    // Fortran I/O statements.
    {.name = "open", .langs = F, .method = false, .op = O::kOpen, .api = A::kFortran, .mode = M::kFortran, .name_kw = "file"},
    {.name = "write", .langs = F, .method = false, .op = O::kWrite, .api = A::kFortran, .handle_arg = 0},
    {.name = "read", .langs = F, .method = false, .op = O::kRead, .api = A::kFortran, .handle_arg = 0},
    {.name = "close", .langs = F, .method = false, .op = O::kClose, .api = A::kFortran, .handle_arg = 0},
    {.name = "inquire", .langs = F, .method = false, .op = O::kStat, .api = A::kNone, .name_kw = "file"},
    {.name = "execute_command_line", .langs = F, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "system", .langs = F, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "random_number", .langs = F, .method = false, .op = O::kRandomOut, .api = A::kNone, .out_arg = 0},
    // Python: built-ins and os, then numpy, h5py, netCDF4, mpi4py, data loaders.
    {.name = "open", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kPyMode, .name_arg = 0, .mode_arg = 1, .name_kw = "file", .mode_kw = "mode"},
    {.name = "io.open", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kPyMode, .name_arg = 0, .mode_arg = 1, .name_kw = "file", .mode_kw = "mode"},
    {.name = "gzip.open", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kPyMode, .name_arg = 0, .mode_arg = 1, .name_kw = "filename", .mode_kw = "mode"},
    {.name = "os.open", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kOflags, .name_arg = 0, .mode_arg = 1},
    {.name = "os.write", .langs = P, .method = false, .op = O::kWrite, .api = A::kPython, .handle_arg = 0},
    {.name = "os.pwrite", .langs = P, .method = false, .op = O::kWrite, .api = A::kPython, .handle_arg = 0, .offset_arg = 2},
    {.name = "os.read", .langs = P, .method = false, .op = O::kRead, .api = A::kPython, .handle_arg = 0, .size_arg = 1},
    {.name = "os.pread", .langs = P, .method = false, .op = O::kRead, .api = A::kPython, .handle_arg = 0, .size_arg = 1, .offset_arg = 2},
    {.name = "os.lseek", .langs = P, .method = false, .op = O::kSeek, .api = A::kPython, .handle_arg = 0, .offset_arg = 1},
    {.name = "os.close", .langs = P, .method = false, .op = O::kClose, .api = A::kPython, .handle_arg = 0},
    {.name = "os.fsync", .langs = P, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "os.fdatasync", .langs = P, .method = false, .op = O::kSync, .api = A::kNone, .handle_arg = 0},
    {.name = "os.stat", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.lstat", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.access", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.path.exists", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.path.isfile", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.path.isdir", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.path.getsize", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.path.getmtime", .langs = P, .method = false, .op = O::kStat, .api = A::kNone, .name_arg = 0},
    {.name = "os.remove", .langs = P, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "os.unlink", .langs = P, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "os.rmdir", .langs = P, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "shutil.rmtree", .langs = P, .method = false, .op = O::kUnlink, .api = A::kNone, .name_arg = 0},
    {.name = "os.mkdir", .langs = P, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 0},
    {.name = "os.makedirs", .langs = P, .method = false, .op = O::kMkdir, .api = A::kNone, .name_arg = 0},
    {.name = "os.listdir", .langs = P, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "os.scandir", .langs = P, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "glob.glob", .langs = P, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "glob.iglob", .langs = P, .method = false, .op = O::kDirScan, .api = A::kNone, .name_arg = 0},
    {.name = "os.walk", .langs = P, .method = false, .op = O::kDirWalk, .api = A::kNone, .name_arg = 0},
    {.name = "os.rename", .langs = P, .method = false, .op = O::kRename, .api = A::kNone, .name_arg = 0},
    {.name = "os.replace", .langs = P, .method = false, .op = O::kRename, .api = A::kNone, .name_arg = 0},
    {.name = "shutil.move", .langs = P, .method = false, .op = O::kRename, .api = A::kNone, .name_arg = 0},
    {.name = "os.system", .langs = P, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "subprocess.run", .langs = P, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "subprocess.call", .langs = P, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "subprocess.check_call", .langs = P, .method = false, .op = O::kShell, .api = A::kNone},
    {.name = "pickle.dump", .langs = P, .method = false, .op = O::kWrite, .api = A::kPython, .handle_arg = 1},
    {.name = "json.dump", .langs = P, .method = false, .op = O::kWrite, .api = A::kPython, .handle_arg = 1, .text = true},
    {.name = "pickle.load", .langs = P, .method = false, .op = O::kRead, .api = A::kPython, .handle_arg = 0},
    {.name = "json.load", .langs = P, .method = false, .op = O::kRead, .api = A::kPython, .handle_arg = 0},
    {.name = "torch.save", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kWrite, .name_arg = 1, .name_kw = "f"},
    {.name = "torch.load", .langs = P, .method = false, .op = O::kOpen, .api = A::kPython, .mode = M::kRead, .name_arg = 0, .name_kw = "f"},
    {.name = "np.save", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kWrite, .name_arg = 0, .name_kw = "file"},
    {.name = "np.savez", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kWrite, .name_arg = 0, .name_kw = "file"},
    {.name = "np.savez_compressed", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kWrite, .name_arg = 0, .name_kw = "file"},
    {.name = "np.savetxt", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kWrite, .name_arg = 0, .name_kw = "fname"},
    {.name = "np.load", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kRead, .name_arg = 0, .name_kw = "file"},
    {.name = "np.loadtxt", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kRead, .name_arg = 0, .name_kw = "fname"},
    {.name = "np.genfromtxt", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kRead, .name_arg = 0, .name_kw = "fname"},
    {.name = "np.fromfile", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kRead, .name_arg = 0, .name_kw = "file"},
    {.name = "np.memmap", .langs = P, .method = false, .op = O::kOpen, .api = A::kNumpy, .mode = M::kMemmap, .name_arg = 0, .name_kw = "filename", .mode_kw = "mode"},
    {.name = "tofile", .langs = P, .method = true, .op = O::kOpen, .api = A::kNumpy, .mode = M::kWrite, .name_arg = 0, .name_kw = "fid"},
    {.name = "h5py.File", .langs = P, .method = false, .op = O::kOpen, .api = A::kHdf5, .mode = M::kH5py, .name_arg = 0, .mode_arg = 1, .name_kw = "name", .mode_kw = "mode"},
    {.name = "netCDF4.Dataset", .langs = P, .method = false, .op = O::kOpen, .api = A::kNetcdf, .mode = M::kNetcdf4, .name_arg = 0, .mode_arg = 1, .name_kw = "filename", .mode_kw = "mode"},
    {.name = "MPI.File.Open", .langs = P, .method = false, .op = O::kOpen, .api = A::kMpiio, .mode = M::kMpiAmode, .name_arg = 1, .mode_arg = 2, .comm_arg = 0, .name_kw = "filename", .mode_kw = "amode"},
    {.name = "random.shuffle", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "np.random.shuffle", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "np.random.permutation", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "torch.randperm", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "DataLoader", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    {.name = "torch.utils.data.DataLoader", .langs = P, .method = false, .op = O::kShuffle, .api = A::kNone},
    // Python methods (any receiver).
    {.name = "write", .langs = P, .method = true, .op = O::kWrite, .api = A::kPython, .handle_arg = R},
    {.name = "writelines", .langs = P, .method = true, .op = O::kWrite, .api = A::kPython, .handle_arg = R, .text = true},
    {.name = "read", .langs = P, .method = true, .op = O::kRead, .api = A::kPython, .handle_arg = R, .size_arg = 0},
    {.name = "readline", .langs = P, .method = true, .op = O::kRead, .api = A::kPython, .handle_arg = R, .text = true},
    {.name = "readlines", .langs = P, .method = true, .op = O::kRead, .api = A::kPython, .handle_arg = R},
    {.name = "seek", .langs = P, .method = true, .op = O::kSeek, .api = A::kPython, .handle_arg = R, .offset_arg = 0},
    {.name = "close", .langs = P, .method = true, .op = O::kClose, .api = A::kPython, .handle_arg = R},
    {.name = "mkdir", .langs = P, .method = true, .op = O::kMkdir, .api = A::kNone, .name_arg = R},
    {.name = "iterdir", .langs = P, .method = true, .op = O::kDirScan, .api = A::kNone, .name_arg = R},
    {.name = "rglob", .langs = P, .method = true, .op = O::kDirWalk, .api = A::kNone, .name_arg = R},
    {.name = "unlink", .langs = P, .method = true, .op = O::kUnlink, .api = A::kNone, .name_arg = R},
    {.name = "write_text", .langs = P, .method = true, .op = O::kOpen, .api = A::kPython, .mode = M::kWrite, .name_arg = R},
    {.name = "write_bytes", .langs = P, .method = true, .op = O::kOpen, .api = A::kPython, .mode = M::kWrite, .name_arg = R},
    {.name = "read_text", .langs = P, .method = true, .op = O::kOpen, .api = A::kPython, .mode = M::kRead, .name_arg = R},
    {.name = "read_bytes", .langs = P, .method = true, .op = O::kOpen, .api = A::kPython, .mode = M::kRead, .name_arg = R},
    {.name = "Set_view", .langs = P, .method = true, .op = O::kSetView, .api = A::kMpiio, .handle_arg = R, .offset_arg = 0},
    {.name = "Sync", .langs = P, .method = true, .op = O::kSync, .api = A::kNone, .handle_arg = R},
    {.name = "Seek", .langs = P, .method = true, .op = O::kSeek, .api = A::kNone, .handle_arg = R, .offset_arg = 0},
    {.name = "Barrier", .langs = P, .method = true, .op = O::kBarrier, .api = A::kNone},
    {.name = "barrier", .langs = P, .method = true, .op = O::kBarrier, .api = A::kNone},
    {.name = "shuffle", .langs = P, .method = true, .op = O::kShuffle, .api = A::kNone},
    {.name = "permutation", .langs = P, .method = true, .op = O::kShuffle, .api = A::kNone},
};
// clang-format on

uint8_t LangBit(Lang lang) { return lang == Lang::kPython ? kLangPy : IsFortran(lang) ? kLangF : kLangC; }

}  // namespace

const OpInfo* FindOp(Lang lang, const Call& call, std::string_view normalized) {
  uint8_t bit = LangBit(lang);
  bool fortran = IsFortran(lang);
  bool has_object = !call.object.empty();
  for (const OpInfo& op : kOps) {
    if (!(op.langs & bit) || op.method) continue;
    if (fortran ? text::IEquals(normalized, op.name) : normalized == op.name) return &op;
  }
  if (!has_object) return nullptr;
  for (const OpInfo& op : kOps) {
    if ((op.langs & bit) && op.method && call.base == op.name) return &op;
  }
  return nullptr;
}

std::optional<MpiData> ClassifyMpiData(Lang lang, const Call& call) {
  std::string s = text::Lower(call.base);
  if (lang == Lang::kPython) {
    if (call.object.empty() || call.base.empty() || !std::isupper(static_cast<unsigned char>(call.base[0])))
      return std::nullopt;
  } else {
    if (s.rfind("mpi_file_", 0) != 0 || !call.object.empty()) return std::nullopt;
    s = s.substr(9);
  }
  if (!s.empty() && s[0] == 'i') s = s.substr(1);
  MpiData d;
  if (s.rfind("write", 0) == 0) {
    d.write = true;
    s = s.substr(5);
  } else if (s.rfind("read", 0) == 0) {
    s = s.substr(4);
  } else {
    return std::nullopt;
  }
  static constexpr const char* kSuffixes[] = {
      "",           "_at",      "_all",          "_at_all",     "_shared",        "_ordered",
      "_all_begin", "_all_end", "_at_all_begin", "_at_all_end", "_ordered_begin", "_ordered_end"};
  for (const char* suffix : kSuffixes) {
    if (s != suffix) continue;
    d.collective = s.find("_all") != std::string::npos || s.find("_ordered") != std::string::npos;
    d.at = s.find("_at") != std::string::npos;
    d.end = s.size() >= 4 && s.substr(s.size() - 4) == "_end";
    return d;
  }
  return std::nullopt;
}

double MpiTypeBytes(std::string_view type) {
  static constexpr std::pair<const char*, double> kTypes[] = {
      {"MPI_CHAR", 1},          {"MPI_BYTE", 1},           {"MPI_SIGNED_CHAR", 1},
      {"MPI_UNSIGNED_CHAR", 1}, {"MPI_CHARACTER", 1},      {"MPI_INT8_T", 1},
      {"MPI_SHORT", 2},         {"MPI_INT16_T", 2},        {"MPI_INT", 4},
      {"MPI_UNSIGNED", 4},      {"MPI_FLOAT", 4},          {"MPI_INTEGER", 4},
      {"MPI_REAL", 4},          {"MPI_INTEGER4", 4},       {"MPI_REAL4", 4},
      {"MPI_INT32_T", 4},       {"MPI_LONG", 8},           {"MPI_LONG_LONG", 8},
      {"MPI_UNSIGNED_LONG", 8}, {"MPI_DOUBLE", 8},         {"MPI_DOUBLE_PRECISION", 8},
      {"MPI_INT64_T", 8},       {"MPI_UINT64_T", 8},       {"MPI_REAL8", 8},
      {"MPI_INTEGER8", 8},      {"MPI_OFFSET", 8},         {"MPI_COMPLEX", 8},
      {"MPI_LONG_DOUBLE", 16},  {"MPI_DOUBLE_COMPLEX", 16}};
  for (const auto& [name, bytes] : kTypes) {
    if (text::IEquals(type, name)) return bytes;
  }
  return 0;
}

uint32_t FlagsOfName(std::string_view ident) {
  static constexpr std::pair<const char*, uint32_t> kFlags[] = {{"O_RDONLY", kFRead},
                                                                {"O_WRONLY", kFWrite},
                                                                {"O_RDWR", kFRead | kFWrite},
                                                                {"O_CREAT", kFCreate},
                                                                {"O_TRUNC", kFWrite},
                                                                {"O_APPEND", kFAppend | kFWrite},
                                                                {"O_EXCL", kFExcl},
                                                                {"O_DIRECT", kFDirect},
                                                                {"MPI_MODE_RDONLY", kFRead},
                                                                {"MPI_MODE_WRONLY", kFWrite},
                                                                {"MPI_MODE_RDWR", kFRead | kFWrite},
                                                                {"MPI_MODE_CREATE", kFCreate},
                                                                {"MPI_MODE_EXCL", kFExcl},
                                                                {"MPI_MODE_APPEND", kFAppend | kFWrite},
                                                                {"MODE_RDONLY", kFRead},
                                                                {"MODE_WRONLY", kFWrite},
                                                                {"MODE_RDWR", kFRead | kFWrite},
                                                                {"MODE_CREATE", kFCreate},
                                                                {"MODE_EXCL", kFExcl},
                                                                {"MODE_APPEND", kFAppend | kFWrite},
                                                                {"H5F_ACC_TRUNC", kFCreate | kFWrite},
                                                                {"H5F_ACC_EXCL", kFCreate | kFExcl | kFWrite},
                                                                {"H5F_ACC_RDWR", kFRead | kFWrite},
                                                                {"H5F_ACC_RDONLY", kFRead},
                                                                {"H5F_ACC_TRUNC_F", kFCreate | kFWrite},
                                                                {"H5F_ACC_EXCL_F", kFCreate | kFExcl | kFWrite},
                                                                {"H5F_ACC_RDWR_F", kFRead | kFWrite},
                                                                {"H5F_ACC_RDONLY_F", kFRead},
                                                                {"NC_CLOBBER", kFCreate | kFWrite},
                                                                {"NC_NOCLOBBER", kFCreate | kFExcl | kFWrite},
                                                                {"NC_WRITE", kFRead | kFWrite},
                                                                {"NC_NOWRITE", kFRead},
                                                                {"NC_MPIIO", kFParallel},
                                                                {"NC_MPIPOSIX", kFParallel},
                                                                {"NF90_CLOBBER", kFCreate | kFWrite},
                                                                {"NF90_NOCLOBBER", kFCreate | kFExcl | kFWrite},
                                                                {"NF90_WRITE", kFRead | kFWrite},
                                                                {"NF90_NOWRITE", kFRead},
                                                                {"NF90_MPIIO", kFParallel},
                                                                {"NF_MPIIO", kFParallel}};
  if (ident.size() < 4) return 0;
  for (const auto& [name, bits] : kFlags) {
    if (text::IEquals(ident, name)) return bits;
  }
  return 0;
}

const char* ApiFact(Api api) {
  switch (api) {
    case Api::kPosix:
      return "io.posix";
    case Api::kStdio:
      return "io.stdio";
    case Api::kFortran:
      return "io.fortran";
    case Api::kPython:
      return "io.python";
    case Api::kNumpy:
      return "io.numpy";
    case Api::kHdf5:
      return "io.hdf5";
    case Api::kNetcdf:
      return "io.netcdf";
    case Api::kMpiio:
    case Api::kNone:
      return "";
  }
  return "";
}

}  // namespace bb::modeselect::scan
