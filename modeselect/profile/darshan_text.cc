// darshan-parser text, line by line, as darshan-util/darshan-parser.c (3.x) prints it:
//   "# darshan log version: 3.41", "# exe: ...", "# nprocs: N", "# run time: T", "# start_time: S",
//   "# mount entry: ...", "# <MOD> module data" opening a module's section, comments;
//   records from DARSHAN_D/F_COUNTER_PRINT (darshan-logutils.h), tab-separated:
//     <module> <rank> <record id> <counter> <value> <file name> <mount pt> <fs type>
//   and --total lines "total_<COUNTER>: <value>" (posix_print_total_file and its siblings).
// A record's columns are split at tabs (hand-made text without tabs: at runs of blanks); a
// file name holding the separator is what lies between the fifth column and the last two.

#include <charconv>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

#include "modeselect/profile/darshan_log.h"

namespace bb::modeselect::darshan {
namespace {

// Module names as darshan-log-format.h's DARSHAN_MODULE_IDS spells them.
constexpr std::string_view kModuleNames[] = {"NULL",        "POSIX", "MPI-IO", "H5F",     "H5D",       "PNETCDF_FILE",
                                             "PNETCDF_VAR", "BG/Q",  "LUSTRE", "STDIO",   "DXT_POSIX", "DXT_MPIIO",
                                             "MDHIM",       "APXC",  "APMPI",  "HEATMAP", "DFS",       "DAOS"};
constexpr std::string_view kBinNames[kSizeBinCount] = {"0_100", "100_1K", "1K_10K",   "10K_100K", "100K_1M",
                                                       "1M_4M", "4M_10M", "10M_100M", "100M_1G",  "1G_PLUS"};

constexpr uint8_t kP = 1, kM = 2, kS = 4;  // the modules a counter suffix exists in
struct Row {
  std::string_view suffix;
  Counter counter;
  uint8_t modules;
};
constexpr Row kRows[] = {
    {"OPENS", kOpens, kP | kS},
    {"FILENOS", kFilenos, kP},
    {"DUPS", kDups, kP},
    {"READS", kReads, kP | kS},
    {"WRITES", kWrites, kP | kS},
    {"SEEKS", kSeeks, kP | kS},
    {"STATS", kStats, kP},
    {"FSYNCS", kFsyncs, kP},
    {"FDSYNCS", kFdsyncs, kP},
    {"RENAME_SOURCES", kRenameSources, kP},
    {"BYTES_READ", kBytesRead, kP | kM | kS},
    {"BYTES_WRITTEN", kBytesWritten, kP | kM | kS},
    {"MAX_BYTE_READ", kMaxByteRead, kP | kS},
    {"MAX_BYTE_WRITTEN", kMaxByteWritten, kP | kS},
    {"CONSEC_READS", kConsecReads, kP},
    {"CONSEC_WRITES", kConsecWrites, kP},
    {"SEQ_READS", kSeqReads, kP},
    {"SEQ_WRITES", kSeqWrites, kP},
    {"F_OPEN_START_TIMESTAMP", kOpenStart, kP | kM | kS},
    {"F_READ_START_TIMESTAMP", kReadStart, kP | kM | kS},
    {"F_READ_END_TIMESTAMP", kReadEnd, kP | kM | kS},
    {"F_WRITE_START_TIMESTAMP", kWriteStart, kP | kM | kS},
    {"F_WRITE_END_TIMESTAMP", kWriteEnd, kP | kM | kS},
    {"F_CLOSE_END_TIMESTAMP", kCloseEnd, kP | kM | kS},
    {"INDEP_OPENS", kIndepOpens, kM},
    {"COLL_OPENS", kCollOpens, kM},
    {"INDEP_READS", kIndepReads, kM},
    {"INDEP_WRITES", kIndepWrites, kM},
    {"COLL_READS", kCollReads, kM},
    {"COLL_WRITES", kCollWrites, kM},
    {"SPLIT_READS", kSplitReads, kM},
    {"SPLIT_WRITES", kSplitWrites, kM},
    {"NB_READS", kNbReads, kM},
    {"NB_WRITES", kNbWrites, kM},
    {"SYNCS", kSyncs, kM},
};
// Counter prefixes by Module; the MPI-IO module's counters are MPIIO_*.
constexpr std::string_view kPrefixes[kReadModules] = {"POSIX_", "MPIIO_", "STDIO_"};
constexpr std::string_view kReadModuleNames[kReadModules] = {"POSIX", "MPI-IO", "STDIO"};

using CounterTable = std::unordered_map<std::string, std::pair<Module, Counter>>;

CounterTable BuildCounterTable() {
  CounterTable t;
  for (size_t m = 0; m < kReadModules; ++m) {
    std::string prefix(kPrefixes[m]);
    for (const Row& r : kRows) {
      if (r.modules & (1 << m)) t[prefix + std::string(r.suffix)] = {static_cast<Module>(m), r.counter};
    }
  }
  for (size_t b = 0; b < kSizeBinCount; ++b) {
    t["POSIX_SIZE_READ_" + std::string(kBinNames[b])] = {Module::kPosix, static_cast<Counter>(kSizeRead0 + b)};
    t["POSIX_SIZE_WRITE_" + std::string(kBinNames[b])] = {Module::kPosix, static_cast<Counter>(kSizeWrite0 + b)};
  }
  return t;
}

const CounterTable& Table() {
  static const CounterTable table = BuildCounterTable();
  return table;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// `s` for a message: at most 40 bytes, control bytes as '?'.
std::string Quote(std::string_view s) {
  std::string out(s.substr(0, 40));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "\"" + out + (s.size() > 40 ? "...\"" : "\"");
}

template <typename T>
bool ParseWhole(std::string_view s, T* out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool IsWord(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool KnownModule(std::string_view m) {
  for (std::string_view k : kModuleNames) {
    if (m == k) return true;
  }
  return false;
}

struct Scan {
  Log log;
  bool saw_version = false;
  std::string section;                                         // the module of the last "# <MOD> module data" line
  std::map<std::tuple<int, int64_t, uint64_t>, size_t> index;  // (module, rank, id) -> records
  int unmonitored = 0;                                         // read counters printed as -1
};

Status LineError(int n, const std::string& what) { return Status(EINVAL, "line " + std::to_string(n) + ": " + what); }

// After "# key: ", or nullopt.
std::optional<std::string_view> HeaderValue(std::string_view line, std::string_view key) {
  if (line.substr(0, key.size()) != key) return std::nullopt;
  return Trim(line.substr(key.size()));
}

Status HeaderLine(std::string_view line, int n, Scan* s) {
  if (auto v = HeaderValue(line, "# darshan log version:")) {
    s->saw_version = true;
    s->log.version = std::string(*v);
  } else if (auto v = HeaderValue(line, "# exe:")) {
    s->log.exe = std::string(*v);
  } else if (auto v = HeaderValue(line, "# nprocs:")) {
    int64_t procs = 0;
    if (!ParseWhole(*v, &procs) || procs < 1 || procs > UINT32_MAX) {
      return LineError(n, "nprocs " + Quote(*v) + " is not a positive integer");
    }
    s->log.nprocs = static_cast<uint32_t>(procs);
  } else if (auto v = HeaderValue(line, "# run time:")) {
    double t = 0;
    if (!ParseWhole(*v, &t) || !(t >= 0)) return LineError(n, "run time " + Quote(*v) + " is not a number >= 0");
    s->log.run_time = t;
  } else if (auto v = HeaderValue(line, "# start_time:")) {
    if (!ParseWhole(*v, &s->log.start_time)) return LineError(n, "start_time " + Quote(*v) + " is not a number");
  } else if (line.size() > 14 && line.substr(0, 2) == "# " && line.substr(line.size() - 12) == " module data") {
    s->section = std::string(Trim(line.substr(2, line.size() - 14)));
  } else if (line.find("contains incomplete data") != std::string_view::npos) {
    s->log.warnings.push_back("darshan: " + std::string(Trim(line.substr(1))));
  }
  return Status::Ok();
}

// A read counter's value: -1 (not monitored), other negatives and NaN count as 0.
double CounterValue(double v, Scan* s) {
  if (v == -1) ++s->unmonitored;
  return std::isfinite(v) && v > 0 ? v : 0;
}

Status NeedHeader(int n, const Scan& s, const char* what) {
  if (!s.saw_version) {
    return LineError(n, std::string(what) + " before the \"# darshan log version:\" header: not darshan-parser output");
  }
  if (s.log.nprocs == 0) return LineError(n, std::string(what) + " before the \"# nprocs:\" line");
  return Status::Ok();
}

Status TotalLine(std::string_view line, int n, const CounterTable& table, Scan* s) {
  BB_RETURN_IF_ERROR(NeedHeader(n, *s, "a total line"));
  size_t colon = line.find(':');
  std::string_view name = line.substr(6, colon == std::string_view::npos ? std::string_view::npos : colon - 6);
  if (colon == std::string_view::npos || !IsWord(name)) {
    return LineError(n, "a total line that is not \"total_<COUNTER>: <value>\": " + Quote(line));
  }
  std::string_view value = Trim(line.substr(colon + 1));
  double v = 0;
  if (!ParseWhole(value, &v))
    return LineError(n, "value " + Quote(value) + " of " + std::string(name) + " is not a number");
  auto it = table.find(std::string(name));
  if (it == table.end()) return Status::Ok();
  s->log.totals[static_cast<size_t>(it->second.first)][it->second.second] = CounterValue(v, s);
  s->log.have_totals = true;
  return Status::Ok();
}

std::vector<std::string_view> Columns(std::string_view line) {
  std::vector<std::string_view> cols;
  bool tabs = line.find('\t') != std::string_view::npos;
  size_t i = 0;
  while (i <= line.size()) {
    size_t end = tabs ? line.find('\t', i) : line.find_first_of(" \t", i);
    if (end == std::string_view::npos) end = line.size();
    if (tabs || end > i) cols.push_back(line.substr(i, end - i));
    i = end + 1;
  }
  if (cols.size() > 8) {  // the file name held the separator
    size_t name_end = cols.size() - 2;
    cols[5] = std::string_view(cols[5].data(), cols[name_end - 1].data() + cols[name_end - 1].size() - cols[5].data());
    cols.erase(cols.begin() + 6, cols.begin() + name_end);
  }
  return cols;
}

// The columns of a record line checked: module, rank, record id, counter name, value.
Status CheckRecord(const std::vector<std::string_view>& c, int n, const Scan& s, int64_t* rank, uint64_t* id,
                   double* value) {
  if (c.size() < 8) {
    return LineError(n, "a record with " + std::to_string(c.size()) +
                            " of 8 columns (truncated or not a record): " + Quote(c.empty() ? "" : c[0]));
  }
  if (!s.section.empty() ? c[0] != s.section : !KnownModule(c[0])) {
    return LineError(n, "a record of module " + Quote(c[0]) +
                            (s.section.empty() ? " (no such module)" : " in the " + s.section + " module section"));
  }
  if (!ParseWhole(c[1], rank) || *rank < -1) return LineError(n, "rank " + Quote(c[1]) + " is not an integer >= -1");
  if (*rank >= static_cast<int64_t>(s.log.nprocs)) {
    return LineError(n,
                     "rank " + std::to_string(*rank) + " but the header says nprocs " + std::to_string(s.log.nprocs));
  }
  if (!ParseWhole(c[2], id)) return LineError(n, "record id " + Quote(c[2]) + " is not an unsigned integer");
  if (!IsWord(c[3])) return LineError(n, "counter name " + Quote(c[3]) + " is not one word");
  if (!ParseWhole(c[4], value)) {
    return LineError(n, "value " + Quote(c[4]) + " of " + std::string(c[3]) + " is not a number");
  }
  return Status::Ok();
}

Status RecordLine(std::string_view line, int n, const CounterTable& table, Scan* s) {
  BB_RETURN_IF_ERROR(NeedHeader(n, *s, "a record"));
  std::vector<std::string_view> c = Columns(line);
  int64_t rank = 0;
  uint64_t id = 0;
  double value = 0;
  BB_RETURN_IF_ERROR(CheckRecord(c, n, *s, &rank, &id, &value));
  for (size_t m = 0; m < kReadModules; ++m) {
    if (c[0] == kReadModuleNames[m] && c[3].substr(0, kPrefixes[m].size()) != kPrefixes[m]) {
      return LineError(n, "counter " + std::string(c[3]) + " in a " + std::string(c[0]) + " record");
    }
  }
  auto it = table.find(std::string(c[3]));
  if (it == table.end()) return Status::Ok();  // a counter not read, or a module not read
  auto [module, counter] = it->second;
  auto [at, added] = s->index.try_emplace({static_cast<int>(module), rank, id}, s->log.records.size());
  if (added) s->log.records.push_back(Record{module, rank, id, std::string(c[5]), {}});
  s->log.records[at->second].v[counter] = CounterValue(value, s);
  return Status::Ok();
}

Status ScanLine(std::string_view line, int n, const CounterTable& table, Scan* s) {
  line = Trim(line);
  if (line.empty()) return Status::Ok();
  if (line[0] == '#') return HeaderLine(line, n, s);
  if (line.substr(0, 6) == "total_") return TotalLine(line, n, table, s);
  return RecordLine(line, n, table, s);
}

}  // namespace

Result<Log> ScanText(std::string_view text) {
  const CounterTable& table = Table();
  Scan s;
  int n = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    BB_RETURN_IF_ERROR(ScanLine(text.substr(at, end - at), ++n, table, &s));
    at = end + 1;
  }
  if (!s.saw_version) {
    return Status(EINVAL,
                  "not darshan-parser output: no \"# darshan log version:\" line in " + std::to_string(n) + " lines");
  }
  if (s.unmonitored > 0) {
    s.log.warnings.push_back("darshan: " + std::to_string(s.unmonitored) +
                             " counters read were -1 (not monitored) and count as 0");
  }
  return std::move(s.log);
}

}  // namespace bb::modeselect::darshan
