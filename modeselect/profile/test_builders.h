// Test support for modeselect/profile/: probe profiles built in code, counted as the daemons
// count (fs/core/observe/profile.cc) and summed as bbctl merges them (tools/jobs/profile_doc.cc).
//
// Thread-safety: value types and functions of their arguments.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "modeselect/evidence.h"
#include "modeselect/profile/profile.h"

namespace bb::modeselect::testing {

inline constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

// The probe's bin of a request (fs/core/observe/profile.cc, SizeBin).
inline size_t ProbeBin(uint64_t bytes) {
  constexpr uint64_t kUpper[] = {100, 1024, 10240, 102400, 1 << 20, 4 << 20, 10ULL << 20, 100ULL << 20, 1ULL << 30};
  for (size_t i = 0; i < std::size(kUpper); ++i) {
    if (bytes < kUpper[i]) return i;
  }
  return kSizeBinCount - 1;
}

inline uint32_t NodeOf(const std::string& proc) {
  return static_cast<uint32_t>(std::stoul(proc.substr(0, proc.find(':'))));
}

inline void AddNode(std::vector<uint32_t>* nodes, uint32_t n) {
  auto at = std::lower_bound(nodes->begin(), nodes->end(), n);
  if (at == nodes->end() || *at != n) nodes->insert(at, n);
}

inline void AddProcess(std::vector<Process>* procs, const std::string& name) {
  auto at = std::lower_bound(procs->begin(), procs->end(), name,
                             [](const Process& p, const std::string& n) { return p.name < n; });
  if (at == procs->end() || at->name != name) procs->insert(at, Process{name, std::nullopt});
}

inline FileRecord NewFile(const std::string& path, std::optional<uint32_t> created_on) {
  FileRecord f;
  f.path = path;
  f.created_on = created_on;
  return f;
}

// Each of `procs` ("NODE:PID") opens `f` and writes (or reads) `bytes_each` in requests of
// `request` bytes: sequentially from offset 0, or (random) each request away from the last.
inline void Access(FileRecord* f, bool write, const std::vector<std::string>& procs, uint64_t bytes_each,
                   uint64_t request, bool random = false, bool append = false) {
  for (const std::string& p : procs) {
    uint64_t n = bytes_each / request;
    f->io.opens++;
    AddNode(&f->opened_on, NodeOf(p));
    AddNode(write ? &f->writer_nodes : &f->reader_nodes, NodeOf(p));
    AddProcess(write ? &f->writers : &f->readers, p);
    (write ? f->io.writes : f->io.reads) += n;
    (write ? f->io.bytes_written : f->io.bytes_read) += n * request;
    (write ? f->io.write_sizes : f->io.read_sizes)[ProbeBin(request)] += n;
    (write ? f->io.seq_writes : f->io.seq_reads) += random ? 0 : n;
    (write ? f->io.consec_writes : f->io.consec_reads) += random ? 0 : n;
    f->io.seeks += random ? n : 0;
    if (write && append) f->io.append_writes += n;
    f->io.max_offset = std::max(f->io.max_offset, n * request);
  }
}
inline void Write(FileRecord* f, const std::vector<std::string>& procs, uint64_t bytes_each, uint64_t request,
                  bool random = false, bool append = false) {
  Access(f, true, procs, bytes_each, request, random, append);
}
inline void Read(FileRecord* f, const std::vector<std::string>& procs, uint64_t bytes_each, uint64_t request,
                 bool random = false) {
  Access(f, false, procs, bytes_each, request, random);
}

inline DirRecord Dir(const std::string& path, std::optional<uint32_t> created_on, uint64_t creates,
                     std::vector<uint32_t> entry_nodes, std::vector<uint32_t> lookup_nodes,
                     std::vector<uint32_t> readdir_nodes = {}) {
  DirRecord d;
  d.path = path;
  d.created_on = created_on;
  d.creates = creates;
  d.entry_nodes = std::move(entry_nodes);
  d.lookup_nodes = std::move(lookup_nodes);
  d.readdir_nodes = std::move(readdir_nodes);
  d.lookups = d.lookup_nodes.size();
  d.readdirs = d.readdir_nodes.size();
  return d;
}

// A probe profile of `files` and `dirs` with the document's totals (meta_ops as the daemons
// count them: opens, creates, lookups, stats, listings, fsyncs).
inline Profile ProbeProfile(std::vector<FileRecord> files, std::vector<DirRecord> dirs = {},
                            std::vector<TimeBucket> buckets = {}, uint32_t nodes = 4) {
  Profile p;
  p.source = ProfileSource::kProbe;
  p.origin = "test";
  p.has_files = p.has_nodes = p.has_namespace = p.has_timeline = true;
  p.job.nodes = p.job.tasks = nodes;
  p.job.mode = 3;
  p.job.wall_seconds = 10;
  ProfileTotals& t = p.totals;
  for (const FileRecord& f : files) {
    for (auto m :
         {&IoCounts::opens, &IoCounts::reads, &IoCounts::writes, &IoCounts::bytes_read, &IoCounts::bytes_written,
          &IoCounts::seq_reads, &IoCounts::consec_reads, &IoCounts::seq_writes, &IoCounts::consec_writes,
          &IoCounts::seeks, &IoCounts::stats, &IoCounts::fsyncs, &IoCounts::append_writes}) {
      t.io.*m += f.io.*m;
    }
    for (size_t b = 0; b < kSizeBinCount; ++b) {
      t.io.read_sizes[b] += f.io.read_sizes[b];
      t.io.write_sizes[b] += f.io.write_sizes[b];
    }
  }
  for (const DirRecord& d : dirs) {
    t.creates += d.creates;
    t.lookups += d.lookups;
    t.readdirs += d.readdirs;
  }
  t.files = files.size();
  t.dirs = dirs.size();
  t.meta_ops = t.io.opens + t.creates + t.lookups + t.io.stats + t.readdirs + t.io.fsyncs;
  t.data_ops = t.io.reads + t.io.writes;
  p.files = std::move(files);
  p.dirs = std::move(dirs);
  p.timeline.buckets = std::move(buckets);
  return p;
}

// The text of modeselect/profile/testdata/<name> (BB_SOURCE_DIR: the test target's definition).
inline std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(BB_SOURCE_DIR) + "/modeselect/profile/testdata/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline const Signal* FindIn(const std::vector<Signal>& signals, std::string_view name) {
  for (const Signal& s : signals) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace bb::modeselect::testing
