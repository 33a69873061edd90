// ProfileSummary: a profile's files and directories summed by class — files (directories) that
// behave alike: the same pattern of nodes and processes making, writing, reading and listing
// them, the same size class and access pattern — with, per class, everything the signals count
// of a file or directory (signals.h defines each measure). The signals are sums of these
// measures, so they come out the same from the classes as from the files, however the files are
// grouped: a probe run of 100,000 files travels as a few hundred classes and the files that
// matter most (KeepTop), and gives the same signals as the whole list.
//
// The probe profile document, version 2 (tools/jobs/profile_doc.h), carries a summary; for a
// version 1 document or a Darshan log, ProfileSignals summarises the files it has.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modeselect/profile/profile.h"

namespace bb::modeselect {

// What files of a class share. Counts are exact, or (coarse) the low end of a power-of-two
// range: 0, 1, 2, 3 (3-4), 5 (5-8), 9 (9-16), ...
struct FilePattern {
  // "before": not created in the run; "writer": created on a node that wrote it, or created and
  // not written; "other": created on a node that did not write it; "mixed": the leftover class.
  std::string made = "mixed";
  uint32_t writer_nodes = 0, reader_nodes = 0;
  uint32_t remote_reader_nodes = 0;   // reader nodes that wrote none of it
  uint32_t nodes = 0;                 // nodes that made or used it in any way
  uint32_t writers = 0, readers = 0;  // processes: w(f) and r(f) of signals.h
  int size_class = -1;                // the Darshan bin of its size (max_offset); -1 = not kept
  std::string access = "mixed";       // "none", "sequential", "random", "append"; "mixed" = not kept
  bool coarse = false;
  auto operator<=>(const FilePattern&) const = default;
};

// The measures of signals.h of one file, or their sums over a class of files.
struct FileSums {
  uint64_t files = 0, written = 0, read = 0;
  uint64_t writers = 0, writer_nodes = 0;  // over written files: w(f), |writer_nodes|
  uint64_t cross_node = 0;                 // files made on one node and used on another
  uint64_t multi_node = 0;                 // files used on more than one node
  uint64_t cross_rank = 0;                 // files read by a process that did not write them
  uint64_t shared_records = 0;             // Darshan: files with a rank -1 record
  double node_shared_bytes = 0;            // written to files with more than one writer node
  double remote_bytes_read = 0;            // read on a node that wrote none of a written file
  double cross_rank_bytes_read = 0;        // read by processes that did not write the file
  double shared_bytes_read = 0;            // read from files several processes (nodes) read
  IoCounts io;                             // summed; max_offset: the largest
  uint64_t stream_bytes_read = 0, stream_bytes_written = 0;

  double BytesRead() const { return static_cast<double>(io.bytes_read + stream_bytes_read); }
  double BytesWritten() const { return static_cast<double>(io.bytes_written + stream_bytes_written); }
  void Add(const FileSums& o);
};

struct FileClass {
  FilePattern pattern;
  FileSums sums;
  std::string example;  // the path of its file with the most bytes (then operations)
};

// What directories of a class share (counts as in FilePattern).
struct DirPattern {
  // "before": not made in the run; "maker": made on a node that made entries in it, or no
  // entries were made; "other": made on a node that made none of its entries; "mixed".
  std::string made = "mixed";
  uint32_t entry_nodes = 0;       // nodes that made entries in it
  bool listed_elsewhere = false;  // listed on a node while another node made entries in it
  int creates_class = -1;         // 0: no creates; k: 2^(k-1) to 2^k - 1 creates; -1 = not kept
  bool coarse = false;
  auto operator<=>(const DirPattern&) const = default;
};

struct DirSums {
  uint64_t dirs = 0, creates = 0, unlinks = 0, lookups = 0, readdirs = 0;
  uint64_t file_opens = 0, file_stats = 0;  // of the files directly in it
  uint64_t cross_node = 0;                  // directories listed where another node made entries
  uint64_t common_parent = 0;               // made on one node, given entries by another
  uint64_t contended = 0;                   // directories where several nodes made many entries
  uint64_t contended_ops = 0;               // their metadata operations
  uint64_t max_entry_nodes = 0;             // the most nodes that made entries in one directory
  void Add(const DirSums& o);
};

struct DirClass {
  DirPattern pattern;
  DirSums sums;
  std::string example;  // the path of its directory with the most operations
};

struct ProfileSummary {
  std::vector<FileClass> files;  // every file, in classes (largest first)
  std::vector<DirClass> dirs;
  // Who: distinct processes that read or wrote a file, and of them the writers; Darshan's
  // largest rank -1 estimates; every node a file's or directory's lists name (sorted).
  uint64_t processes = 0, writer_processes = 0;
  uint32_t shared_writers = 0, shared_procs = 0;
  std::vector<uint32_t> nodes;

  FileSums FileTotals() const;
  DirSums DirTotals() const;
};

// A directory is contended when entries were created in it from at least this many nodes, and
// at least kContendedCreates of them: a flat directory that many nodes fill. A common parent of
// per-task folders (mkdir -p run; run/task$RANK) gets an entry per task, not a storm per node.
inline constexpr size_t kContendedNodes = 2;
inline constexpr uint64_t kContendedCreates = 64;

// The measures of one file. `has_nodes`: the source names nodes (probe).
FileSums MeasureFile(const FileRecord& f, bool has_nodes);
FilePattern PatternOf(const FileRecord& f, bool has_nodes);
// The measures of one directory; `file_opens` and `file_stats`: of the files directly in it.
DirSums MeasureDir(const DirRecord& d, uint64_t file_opens, uint64_t file_stats);
DirPattern PatternOf(const DirRecord& d);

struct SummaryLimits {
  size_t max_file_classes = 256, max_dir_classes = 128;
};

// The summary of `p`'s files and directories (every one it lists). Over a limit, classes are
// made coarser — counts in power-of-two ranges, then without size and access — and the smallest
// left over are summed into one "mixed" class: the sums stay exact, only the patterns blur.
ProfileSummary Summarise(const Profile& p, const SummaryLimits& limits = {});

struct KeepLimits {
  size_t all_files_up_to = 1024;  // a profile of at most this many files keeps all of them
  size_t top_files = 64;          // else: this many by bytes and this many by operations
  size_t all_dirs_up_to = 1024, top_dirs = 64;
};

// Drops from `p` the files and directories the limits do not keep; every class's example is
// kept. `s` is p's summary (from Summarise before the drop).
void KeepTop(Profile* p, const ProfileSummary& s, const KeepLimits& limits = {});

}  // namespace bb::modeselect
