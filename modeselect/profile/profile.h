// Profile: one probe run's I/O, as the mode selector's runtime evidence. Two readers fill it:
//   - ParseProbeProfile: the profile document of `bbctl job run --profile` (the format at the
//     top of tools/jobs/profile_doc.h): per file and directory what Darshan's POSIX module would
//     count, plus which nodes and processes made, opened, wrote, read, stat'ed, looked up and
//     listed each one — every file (version 1), or (version 2) every file of a small run and
//     the top files of a large one, with all of them summed by class (summary.h);
//   - ParseDarshanText: darshan-parser text, `--base` (a line per counter per record) or
//     `--total` (`total_<COUNTER>: value` lines), or both. Darshan knows ranks, not nodes: the
//     node fields stay empty and has_nodes is false; it sees no creates, lookups, listings,
//     unlinks, truncates or appends (has_namespace false).
// ProfileSignals (modeselect/profile/signals.h) reduces a Profile to the signals of the table.
//
// A process is named "NODE:PID" in a probe profile and "rank R" in a Darshan log.
//
// Darshan, as read here: POSIX records give the request counters and size bins; STDIO records
// add their opens and bytes (as stream bytes: stdio buffers, so its call counts are not
// requests) and who read and wrote; MPI-IO records give the MPI-IO counters and who read and
// wrote (their bytes reach the file system through POSIX, and are not counted twice). Records
// of <STDIN>, <STDOUT> and <STDERR> and of other modules (HDF5, PnetCDF, Lustre, heatmap, ...)
// are checked for format and ignored (--total's STDIO sums include the standard streams). The
// text is Darshan 3's; 2.x's, without a module column, is refused. A counter of -1 (not
// monitored) counts as 0. A rank -1 record is Darshan's sum over all ranks of a file every rank
// opened: it names no ranks, so the file gets shared_record and an estimate of its writers and
// readers (below), not names. Darshan counts a record's first access at offset 0 as neither
// sequential nor consecutive where the probe counts it as both: a --base record with fewer
// sequential (consecutive) reads than reads gets one more, and writes likewise — exact when a
// rank's first access is at 0; a --total sum cannot be corrected so (up to one access per rank
// and file more count as random).
//
// Thread-safety: value types and pure functions.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/status.h"

namespace bb::modeselect {

// Darshan's request-size bins, in bytes: 0-100, 100-1K, 1K-10K, 10K-100K, 100K-1M, 1M-4M,
// 4M-10M, 10M-100M, 100M-1G, 1G+ (1K = 1024, 10K = 10240, 100K = 102400, 1M = 2^20).
inline constexpr size_t kSizeBinCount = 10;
using SizeBins = std::array<uint64_t, kSizeBinCount>;

enum class ProfileSource { kProbe, kDarshanBase, kDarshanTotal };
// "probe", "darshan --base", "darshan --total".
const char* ProfileSourceName(ProfileSource s);

// Counters of requests and calls, per file or summed.
struct IoCounts {
  uint64_t opens = 0, reads = 0, writes = 0, bytes_read = 0, bytes_written = 0;
  SizeBins read_sizes{}, write_sizes{};
  // Sequential = at or past the end of the process's previous access (consecutive included);
  // consecutive = exactly at it. Darshan: POSIX_SEQ_*, POSIX_CONSEC_*.
  uint64_t seq_reads = 0, consec_reads = 0, seq_writes = 0, consec_writes = 0;
  uint64_t seeks = 0;  // probe: accesses not consecutive; Darshan: lseek calls
  uint64_t stats = 0;
  uint64_t fsyncs = 0;                                                  // fsync and fdatasync
  uint64_t truncates = 0, renames = 0, unlinks = 0, append_writes = 0;  // Darshan: renames only
  uint64_t max_offset = 0;                                              // one past the highest byte accessed
};

// IoCounts' counters by their names in the probe profile document (tools/jobs/profile_doc.h), each
// once: every one a sum of its parts but max_offset, their maximum.
struct IoCountField {
  const char* key;
  uint64_t IoCounts::*member;
};
inline constexpr IoCountField kIoCountFields[] = {
    {"opens", &IoCounts::opens},
    {"reads", &IoCounts::reads},
    {"writes", &IoCounts::writes},
    {"bytes_read", &IoCounts::bytes_read},
    {"bytes_written", &IoCounts::bytes_written},
    {"seq_reads", &IoCounts::seq_reads},
    {"consec_reads", &IoCounts::consec_reads},
    {"seq_writes", &IoCounts::seq_writes},
    {"consec_writes", &IoCounts::consec_writes},
    {"seeks", &IoCounts::seeks},
    {"stats", &IoCounts::stats},
    {"fsyncs", &IoCounts::fsyncs},
    {"truncates", &IoCounts::truncates},
    {"renames", &IoCounts::renames},
    {"unlinks", &IoCounts::unlinks},
    {"append_writes", &IoCounts::append_writes},
    {"max_offset", &IoCounts::max_offset},
};

// MPI-IO calls (Darshan's MPI-IO module; the probe sees none).
struct MpiioCounts {
  uint64_t indep_opens = 0, coll_opens = 0;
  uint64_t indep_reads = 0, indep_writes = 0, coll_reads = 0, coll_writes = 0;
  uint64_t split_reads = 0, split_writes = 0, nb_reads = 0, nb_writes = 0;
  uint64_t syncs = 0, bytes_read = 0, bytes_written = 0;
  uint64_t Reads() const { return indep_reads + coll_reads + split_reads + nb_reads; }
  uint64_t Writes() const { return indep_writes + coll_writes + split_writes + nb_writes; }
};

struct ProfileJob {
  std::string name, script;            // probe only
  std::string exe;                     // Darshan only ("# exe:")
  int mode = 0;                        // the layout mode the probe ran in (0 = unknown)
  uint32_t nodes = 0;                  // 0 = unknown (Darshan)
  uint32_t tasks = 0;                  // processes; Darshan's "# nprocs:"
  uint32_t tasks_per_node = 0;         // 0 = not given
  std::optional<double> wall_seconds;  // Darshan's "# run time:"
  std::optional<int> exit_status;      // probe only
  double start_unix = 0;               // wall clock at the start (0 = unknown)
};

struct ProfileTotals {
  IoCounts io;  // probe: the document's totals (bins: the sum of its files'); Darshan: POSIX
  uint64_t stream_bytes_read = 0, stream_bytes_written = 0;  // Darshan's STDIO module
  uint64_t files = 0, dirs = 0;
  uint64_t creates = 0, lookups = 0, readdirs = 0;  // probe only (has_namespace)
  // Probe: the daemons' counts. Darshan: meta_ops = POSIX opens (without filenos and dups) +
  // stats + renames + fsyncs + STDIO opens; data_ops = POSIX and STDIO reads and writes.
  uint64_t meta_ops = 0, data_ops = 0;
  MpiioCounts mpiio;
};

struct Process {
  std::string name;               // "NODE:PID" or "rank R"
  std::optional<uint64_t> bytes;  // what it read (or wrote) of the file; probe: unknown
};

struct FileRecord {
  std::string path;  // probe: inside the workspace; Darshan: the full path
  IoCounts io;
  uint64_t stream_bytes_read = 0, stream_bytes_written = 0;  // Darshan STDIO
  MpiioCounts mpiio;
  double first_unix = 0, last_unix = 0;   // 0 = unknown
  std::vector<Process> writers, readers;  // probe: sorted by name; Darshan: by rank
  // Darshan: the file has a rank -1 record. Its writers (readers) are then estimated as
  // min(nprocs, write (read) calls in that record): each writer made at least one call.
  bool shared_record = false;
  uint32_t shared_writers = 0, shared_readers = 0;
  // Probe only (has_nodes). created_on: the node that created it, nullopt when it was not
  // created during the run. stat_nodes: stat'ed or looked up there.
  std::optional<uint32_t> created_on;
  std::vector<uint32_t> opened_on, writer_nodes, reader_nodes, stat_nodes;  // sorted
  // Probe version 2: the bytes read on nodes that wrote none of the file (a version 1 document
  // gives only each node's part of the file's readers, and the signals then take the read bytes
  // to split evenly over the reader nodes).
  std::optional<uint64_t> remote_bytes_read;

  uint64_t BytesRead() const { return io.bytes_read + stream_bytes_read; }
  uint64_t BytesWritten() const { return io.bytes_written + stream_bytes_written; }
  bool Written() const { return io.writes > 0 || BytesWritten() > 0; }
  bool Read() const { return io.reads > 0 || BytesRead() > 0; }
  // w(f) and r(f): the named processes, or Darshan's estimate for a rank -1 record.
  uint32_t Writers() const { return std::max(static_cast<uint32_t>(writers.size()), shared_writers); }
  uint32_t Readers() const { return std::max(static_cast<uint32_t>(readers.size()), shared_readers); }
};

// Probe only. The workspace's root "/" has created_on nullopt: every node has it.
struct DirRecord {
  std::string path;
  uint64_t creates = 0, unlinks = 0, lookups = 0, readdirs = 0;
  std::optional<uint32_t> created_on;
  std::vector<uint32_t> entry_nodes, lookup_nodes, readdir_nodes;  // sorted
};

struct TimeBucket {
  int64_t t = 0;  // seconds from the start
  uint64_t meta_ops = 0, data_ops = 0, bytes_read = 0, bytes_written = 0;
};

// Probe: the daemons' 1-s buckets (seconds without operations left out). Darshan --base: an
// estimate — each record's bytes spread evenly over its first-to-last read (write) interval
// (POSIX_F_*_START/END_TIMESTAMP), bytes only; estimated is true.
struct Timeline {
  double bucket_seconds = 1;
  std::vector<TimeBucket> buckets;  // by t
  bool estimated = false;
};

struct ProfileSummary;  // summary.h

struct Profile {
  ProfileSource source = ProfileSource::kProbe;
  std::string origin;  // the name the caller gave the input (a file path), for messages
  ProfileJob job;
  ProfileTotals totals;
  std::vector<FileRecord> files;  // version 2 of a large run: the top files only
  std::vector<DirRecord> dirs;    // likewise
  // Every file and directory in classes: a version 2 document's; null when `files` and `dirs`
  // are all there is (the signals then summarise them).
  std::shared_ptr<const ProfileSummary> summary;
  Timeline timeline;
  // What the source could see: per-file records (probe, --base), node fields and directories
  // (probe), creates/lookups/listings/unlinks/truncates/appends (probe), a timeline (probe,
  // --base estimated).
  bool has_files = false, has_nodes = false, has_namespace = false, has_timeline = false;
  std::vector<std::string> warnings;  // e.g. a Darshan module marked incomplete
};

// The profile in a probe profile document (JSON, version 1 or 2). Unknown keys are ignored;
// everything the format lists is required, with its type: EINVAL naming the field and where it
// is ("files[3] \"/ckpt/r3\": writer_nodes: missing"), for JSON that does not parse, another
// version, a wrong type, a negative or fractional counter, a size histogram that is not 10
// counts. `source` names the input in messages.
Result<Profile> ParseProbeProfile(std::string_view json_text, const std::string& source);

// The profile in darshan-parser text (--base, --total or both; with both, the records win and
// the total lines are only checked for format). EINVAL naming the line number and what is
// wrong: no "# darshan log version:" header (not darshan-parser output), a record or total
// line before "# nprocs:", a record with fewer than 8 columns, a rank that is not an integer
// >= -1 or is >= nprocs, a record id that is not an unsigned integer, a counter name that is
// not one word or belongs to another module, a value that is not a number. Text that stops
// between lines (a section that never ends) is accepted.
Result<Profile> ParseDarshanText(std::string_view text, const std::string& source);

}  // namespace bb::modeselect
