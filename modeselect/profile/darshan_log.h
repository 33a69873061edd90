// Private to modeselect/profile/: darshan-parser text as scanned (darshan_text.cc) before it
// becomes a Profile (darshan_profile.cc) — the header's fields, each record's counters (those
// the mode selector reads) and the --total sums.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/status.h"
#include "modeselect/profile/profile.h"

namespace bb::modeselect::darshan {

enum class Module { kPosix, kMpiio, kStdio, kOther };
inline constexpr size_t kReadModules = 3;  // the modules read: POSIX, MPI-IO, STDIO

// The counters read, one index per name; a name with the same suffix in two modules (BYTES_READ)
// shares the index, the module tells them apart.
enum Counter : uint8_t {
  kOpens,
  kFilenos,
  kDups,
  kReads,
  kWrites,
  kSeeks,
  kStats,
  kFsyncs,
  kFdsyncs,
  kRenameSources,
  kBytesRead,
  kBytesWritten,
  kMaxByteRead,
  kMaxByteWritten,
  kConsecReads,
  kConsecWrites,
  kSeqReads,
  kSeqWrites,
  kSizeRead0,                                // ... the 10 bins
  kSizeWrite0 = kSizeRead0 + kSizeBinCount,  // ... the 10 bins
  kOpenStart = kSizeWrite0 + kSizeBinCount,
  kReadStart,
  kReadEnd,
  kWriteStart,
  kWriteEnd,
  kCloseEnd,
  kIndepOpens,
  kCollOpens,
  kIndepReads,
  kIndepWrites,
  kCollReads,
  kCollWrites,
  kSplitReads,
  kSplitWrites,
  kNbReads,
  kNbWrites,
  kSyncs,
  kCounterCount
};
using Counters = std::array<double, kCounterCount>;  // -1 (not monitored) and unknown read as 0

struct Record {
  Module module = Module::kOther;
  int64_t rank = 0;  // -1: shared by all ranks
  uint64_t id = 0;   // hash of the path
  std::string path;
  Counters v{};
};

struct Log {
  std::string version, exe;
  uint32_t nprocs = 0;
  std::optional<double> run_time;
  double start_time = 0;
  std::vector<Record> records;                  // read modules only, in the order they first appear
  std::array<Counters, kReadModules> totals{};  // --total sums, by Module
  bool have_totals = false;
  std::vector<std::string> warnings;
};

// The scanned text. Errors: as ParseDarshanText (modeselect/profile/profile.h), without the
// source's name.
Result<Log> ScanText(std::string_view text);

// The profile of a scanned log.
Profile ToProfile(const Log& log, const std::string& source);

}  // namespace bb::modeselect::darshan
