// The I/O vocabulary of the source scanner: which calls open, write, read, stat, make
// directories ... in which language and API, and where their file name, mode, handle, size
// and offset arguments are. One table (scan_ops.cc); a new call is one row. MPI-IO data calls
// are recognized by rule (MpiData) since their names compose: [i]write|read[_at][_all|_shared|
// _ordered][_begin|_end]. Private to modeselect/static/.
//
// Thread-safety: pure functions over constant tables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "modeselect/static/lang/model.h"

namespace bb::modeselect::scan {

enum class Op : uint8_t {
  kOpen,
  kWrite,
  kRead,
  kSeek,
  kSync,
  kClose,
  kStat,
  kUnlink,
  kMkdir,
  kDirScan,
  kDirWalk,
  kRename,
  kBarrier,
  kRankOut,
  kSizeOut,
  kFormat,
  kCopyStr,
  kSetView,
  kInfoSet,
  kParallel,
  kShuffle,
  kRandomOut,
  kShell,
  kIface,
};

enum class Api : uint8_t { kNone, kPosix, kStdio, kFortran, kPython, kNumpy, kMpiio, kHdf5, kNetcdf };

// How an open call says whether it reads, writes, creates, appends.
enum class ModeStyle : uint8_t {
  kNone,
  kOflags,
  kCreate,
  kFopen,
  kPyMode,
  kMpiAmode,
  kH5Create,
  kH5Open,
  kNcCreate,
  kNcOpen,
  kH5py,
  kNetcdf4,
  kIos,
  kFortran,
  kWrite,
  kRead,
  kMemmap,
};

inline constexpr uint8_t kLangC = 1, kLangF = 2, kLangPy = 4;
// An argument that is the call's receiver (f in f.write(x), p in p.mkdir()).
inline constexpr int8_t kReceiver = -2;

struct OpInfo {
  const char* name;  // matched against the call's normalized name (or base, for methods)
  uint8_t langs;     // kLang* bits
  bool method;       // a method on any receiver: matched by base name
  Op op;
  Api api;
  ModeStyle mode = ModeStyle::kNone;
  int8_t name_arg = -1, mode_arg = -1, handle_arg = -1, size_arg = -1, count_arg = -1, offset_arg = -1, comm_arg = -1,
         out_arg = -1;
  bool text = false;      // formatted output: small records of unknown size
  bool parallel = false;  // the open makes a parallel file (nc_create_par, ncmpi_create)
  const char* name_kw = nullptr;
  const char* mode_kw = nullptr;
};

// The row for a call, given its normalized name (aliases expanded, std:: and filesystem::
// stripped); nullptr when the call is no I/O the scanner knows.
const OpInfo* FindOp(Lang lang, const Call& call, std::string_view normalized);

struct MpiData {
  bool write = false;
  bool collective = false;
  bool at = false;   // explicit offset (_at)
  bool end = false;  // a split collective's _end: no buffer or count
};
// MPI_File_write_at_all, mpi_file_iread, fh.Write_ordered ... or nullopt.
std::optional<MpiData> ClassifyMpiData(Lang lang, const Call& call);

// Bytes of an MPI datatype (MPI_DOUBLE -> 8, mpi_integer -> 4), or 0.
double MpiTypeBytes(std::string_view type);

// Open-flag bits named by an identifier (O_APPEND, MPI_MODE_CREATE, H5F_ACC_TRUNC, NC_MPIIO ...).
inline constexpr uint32_t kFRead = 1, kFWrite = 2, kFCreate = 4, kFAppend = 8, kFExcl = 16, kFDirect = 32,
                          kFParallel = 64;
uint32_t FlagsOfName(std::string_view ident);

// The interface fact a call of `api` counts under ("io.posix" ...), or "" for none.
const char* ApiFact(Api api);

}  // namespace bb::modeselect::scan
