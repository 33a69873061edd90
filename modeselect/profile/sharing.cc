// The sharing signals (signals.h defines each): which processes and nodes wrote, read and used
// each file and directory. One pass over the files gathers every sum; the signals follow.

#include <algorithm>
#include <set>
#include <string_view>
#include <unordered_set>

#include "modeselect/profile/signal_parts.h"

namespace bb::modeselect::profile_signals {
namespace {

uint32_t WriterCount(const FileRecord& f) {
  return std::max(static_cast<uint32_t>(f.writers.size()), f.shared_writers);
}
uint32_t ReaderCount(const FileRecord& f) {
  return std::max(static_cast<uint32_t>(f.readers.size()), f.shared_readers);
}
bool Written(const FileRecord& f) { return f.io.writes > 0 || f.BytesWritten() > 0; }
bool Read(const FileRecord& f) { return f.io.reads > 0 || f.BytesRead() > 0; }
bool Has(const std::vector<uint32_t>& sorted, uint32_t n) {
  return std::binary_search(sorted.begin(), sorted.end(), n);
}

void AddSorted(std::vector<uint32_t>* sorted, uint32_t n) {
  auto at = std::lower_bound(sorted->begin(), sorted->end(), n);
  if (at == sorted->end() || *at != n) sorted->insert(at, n);
}

std::string List(const std::vector<uint32_t>& nodes) {
  std::string s;
  for (uint32_t n : nodes) s += (s.empty() ? "" : ", ") + std::to_string(n);
  return s.empty() ? "none" : s;
}

std::string Names(const std::vector<Process>& procs) {
  std::string s;
  for (size_t i = 0; i < procs.size() && i < 3; ++i) s += (i ? ", " : "") + procs[i].name;
  return procs.size() > 3 ? s + ", ..." : s;
}

struct FileStats {
  Examples written, read;
  double writer_sum = 0, writer_node_sum = 0;  // over written files
  const FileRecord* most_writers = nullptr;
  const FileRecord* most_writer_nodes = nullptr;
  std::unordered_set<std::string_view> writer_names, names;
  uint32_t shared_writers = 0, shared_procs = 0;  // the largest rank -1 estimates
  size_t shared_records = 0;
  double bytes_written = 0, bytes_read = 0;  // per-file sums
  double node_shared = 0, shared_read = 0, cross_node_read = 0, cross_rank_read = 0;
  Examples node_shared_ex, shared_read_ex, cross_node_read_ex, cross_rank_read_ex;
  Examples cross_node_files;
  std::vector<uint32_t> nodes;  // sorted
};

void CountUse(const FileRecord& f, FileStats* s) {
  uint32_t w = WriterCount(f), r = ReaderCount(f);
  for (const Process& p : f.writers) s->writer_names.insert(p.name), s->names.insert(p.name);
  for (const Process& p : f.readers) s->names.insert(p.name);
  if (f.shared_record) ++s->shared_records;
  s->shared_writers = std::max(s->shared_writers, f.shared_writers);
  s->shared_procs = std::max({s->shared_procs, f.shared_writers, f.shared_readers});
  if (Written(f)) {
    s->written.Add([&] { return f.path; });
    s->writer_sum += w;
    if (!s->most_writers || w > WriterCount(*s->most_writers)) s->most_writers = &f;
  }
  if (Read(f)) s->read.Add([&] { return f.path; });
  double bw = static_cast<double>(f.BytesWritten()), br = static_cast<double>(f.BytesRead());
  s->bytes_written += bw;
  s->bytes_read += br;
  // One reader node (the probe names nodes; Darshan does not): the file stayed on that node.
  if (r > 1 && br > 0 && f.reader_nodes.size() != 1) {
    s->shared_read += br;
    s->shared_read_ex.Add([&] {
      return f.path + " (" + Num(r) + " readers" + (f.reader_nodes.empty() ? "" : " on nodes " + List(f.reader_nodes)) +
             ")";
    });
  }
}

// The nodes that opened, read or stat'ed `f` but neither created nor wrote it.
std::vector<uint32_t> OutsideNodes(const FileRecord& f) {
  std::vector<uint32_t> outside;
  for (const auto* list : {&f.opened_on, &f.reader_nodes, &f.stat_nodes}) {
    for (uint32_t n : *list) {
      if (!Has(f.writer_nodes, n) && f.created_on != n) AddSorted(&outside, n);
    }
  }
  return outside;
}

void CountNodes(const FileRecord& f, FileStats* s) {
  for (const auto* list : {&f.opened_on, &f.writer_nodes, &f.reader_nodes, &f.stat_nodes}) {
    for (uint32_t n : *list) AddSorted(&s->nodes, n);
  }
  if (f.created_on) AddSorted(&s->nodes, *f.created_on);
  if (Written(f)) {
    s->writer_node_sum += static_cast<double>(f.writer_nodes.size());
    if (!s->most_writer_nodes || f.writer_nodes.size() > s->most_writer_nodes->writer_nodes.size()) {
      s->most_writer_nodes = &f;
    }
  }
  if (f.writer_nodes.size() > 1 && f.BytesWritten() > 0) {
    s->node_shared += static_cast<double>(f.BytesWritten());
    s->node_shared_ex.Add([&] { return f.path + " (nodes " + List(f.writer_nodes) + ")"; });
  }
  if (f.created_on || !f.writer_nodes.empty()) {
    std::vector<uint32_t> outside = OutsideNodes(f);
    if (!outside.empty()) {
      s->cross_node_files.Add([&] {
        return f.path + " (made on " + (f.created_on ? std::to_string(*f.created_on) : "none") + ", written on " +
               List(f.writer_nodes) + ", used on " + List(outside) + ")";
      });
    }
  }
  size_t remote_readers = 0;
  for (uint32_t n : f.reader_nodes) remote_readers += !Has(f.writer_nodes, n);
  if (f.writer_nodes.empty() || remote_readers == 0 || f.BytesRead() == 0) return;
  s->cross_node_read += static_cast<double>(f.BytesRead()) * static_cast<double>(remote_readers) /
                        static_cast<double>(f.reader_nodes.size());
  s->cross_node_read_ex.Add(
      [&] { return f.path + " (written on " + List(f.writer_nodes) + ", read on " + List(f.reader_nodes) + ")"; });
}

bool IsWriter(const FileRecord& f, const std::string& name) {
  for (const Process& w : f.writers) {
    if (w.name == name) return true;
  }
  return false;
}

void CountCrossRank(const FileRecord& f, FileStats* s) {
  if (f.shared_record || f.writers.empty() || f.readers.empty()) return;
  double even_share = static_cast<double>(f.BytesRead()) / static_cast<double>(f.readers.size());
  double bytes = 0;
  for (const Process& r : f.readers) {
    if (!IsWriter(f, r.name)) bytes += r.bytes ? static_cast<double>(*r.bytes) : even_share;
  }
  bytes = std::min(bytes, static_cast<double>(f.BytesRead()));
  if (bytes <= 0) return;
  s->cross_rank_read += bytes;
  s->cross_rank_read_ex.Add(
      [&] { return f.path + " (written by " + Names(f.writers) + ", read by " + Names(f.readers) + ")"; });
}

// "X of Y bytes read (Z%) <what>: examples"; absent when no bytes.
void EmitShare(std::vector<Signal>* out, const char* name, double part, double whole, const char* of,
               const std::string& what, const Examples& ex) {
  if (whole <= 0) return;
  Emit(out, name, part / whole,
       Num(part) + " of " + Num(whole) + " bytes " + of + Percent(part, whole) + " " + what + ex.Text());
}

void EmitWriters(const Profile& p, const FileStats& s, std::vector<Signal>* out) {
  std::string files = " of " + Num(static_cast<double>(p.files.size())) + " files were ";
  Emit(out, "profile.files_written", s.written.count, Num(s.written.count) + files + "written" + s.written.Text());
  Emit(out, "profile.files_read", s.read.count, Num(s.read.count) + files + "read" + s.read.Text());
  if (s.written.count > 0) {
    double mean = s.writer_sum / static_cast<double>(s.written.count);
    Emit(out, "profile.writers_per_file", mean,
         "the " + Num(s.written.count) + " written files had " + Num(mean) + " writer processes each; the most: " +
             s.most_writers->path + " (" + Num(WriterCount(*s.most_writers)) + ")");
  }
  double writers = std::max<double>(static_cast<double>(s.writer_names.size()), s.shared_writers);
  if (writers > 0) {
    Emit(out, "profile.files_per_writer", s.writer_sum / writers,
         Num(s.writer_sum) + " (file, writer) pairs over " + Num(writers) + " writing processes" +
             (s.shared_writers > 0 ? " (rank -1 records: estimated)" : "") + s.written.Text());
  }
  EmitShare(out, "profile.shared_read_fraction", s.shared_read, s.bytes_read, "read",
            "came from files read by more than one process (on more than one node)", s.shared_read_ex);
  double procs = std::max<double>(static_cast<double>(s.names.size()), s.shared_procs);
  std::vector<std::string_view> sorted(s.names.begin(), s.names.end());
  std::sort(sorted.begin(), sorted.end());
  Examples names;
  for (std::string_view n : sorted) names.Add([n] { return std::string(n); });
  Emit(out, "profile.processes", procs,
       Num(procs) + " processes read or wrote files" + (s.shared_procs > 0 ? " (rank -1 records: estimated)" : "") +
           names.Text());
}

void EmitCrossRank(const FileStats& s, std::vector<Signal>* out) {
  std::string files = " (" + Num(static_cast<double>(s.cross_rank_read_ex.count)) + " files";
  if (s.shared_records > 0) {
    files +=
        "; " + Num(static_cast<double>(s.shared_records)) + " with a rank -1 record name no ranks and count as not";
  }
  EmitShare(out, "profile.cross_rank_read_fraction", s.cross_rank_read, s.bytes_read, "read",
            "were read by processes that did not write the file" + files + ")", s.cross_rank_read_ex);
}

void EmitNodes(const Profile& p, const FileStats& s, std::vector<Signal>* out) {
  if (s.written.count > 0) {
    double mean = s.writer_node_sum / static_cast<double>(s.written.count);
    Emit(out, "profile.writer_nodes_per_file", mean,
         "the " + Num(s.written.count) + " written files had " + Num(mean) + " writer nodes each; the most: " +
             s.most_writer_nodes->path + " (nodes " + List(s.most_writer_nodes->writer_nodes) + ")");
  }
  EmitShare(out, "profile.shared_write_fraction", s.node_shared, s.bytes_written, "written",
            "went to files written from more than one node", s.node_shared_ex);
  EmitShare(out, "profile.cross_node_read_fraction", s.cross_node_read, s.bytes_read, "read",
            "came from files written on another node (a file's read bytes split evenly over its reader nodes)",
            s.cross_node_read_ex);
  Emit(out, "profile.cross_node_files", s.cross_node_files.count,
       Num(s.cross_node_files.count) + " of " + Num(static_cast<double>(p.files.size())) +
           " files were opened, read or stat'ed on a node that neither made nor wrote them" +
           s.cross_node_files.Text());
  std::vector<uint32_t> nodes = s.nodes;
  for (const DirRecord& d : p.dirs) {
    for (const auto* list : {&d.entry_nodes, &d.lookup_nodes, &d.readdir_nodes}) {
      for (uint32_t n : *list) AddSorted(&nodes, n);
    }
    if (d.created_on) AddSorted(&nodes, *d.created_on);
  }
  Emit(out, "profile.nodes", static_cast<double>(nodes.size()),
       Num(static_cast<double>(nodes.size())) + " nodes used files or directories: " + List(nodes));
}

// Where a directory was used outside the nodes that made it or its entries; empty when nowhere.
std::vector<uint32_t> OutsideNodes(const DirRecord& d) {
  std::set<uint32_t> origin(d.entry_nodes.begin(), d.entry_nodes.end());
  if (d.created_on) origin.insert(*d.created_on);
  std::set<uint32_t> users(d.lookup_nodes.begin(), d.lookup_nodes.end());
  users.insert(d.readdir_nodes.begin(), d.readdir_nodes.end());
  std::vector<uint32_t> outside;
  for (uint32_t n : users) {
    if (!origin.count(n)) outside.push_back(n);
  }
  return origin.empty() || d.path == "/" ? std::vector<uint32_t>{} : outside;  // the root is every node's
}

void EmitDirNodes(const Profile& p, std::vector<Signal>* out) {
  const DirRecord* most_nodes = nullptr;
  Examples cross;
  for (const DirRecord& d : p.dirs) {
    if (!most_nodes || d.entry_nodes.size() > most_nodes->entry_nodes.size()) most_nodes = &d;
    std::vector<uint32_t> outside = OutsideNodes(d);
    if (outside.empty()) continue;
    cross.Add([&] {
      return d.path + " (made on " + (d.created_on ? std::to_string(*d.created_on) : "none") + ", entries from " +
             List(d.entry_nodes) + ", used on " + List(outside) + ")";
    });
  }
  double nodes = most_nodes ? static_cast<double>(most_nodes->entry_nodes.size()) : 0;
  Emit(out, "profile.shared_dir_creator_nodes", nodes,
       most_nodes ? most_nodes->path + " had entries created from " + Num(nodes) + " nodes (" +
                        List(most_nodes->entry_nodes) + ")"
                  : "no directory was used");
  Emit(out, "profile.cross_node_dirs", cross.count,
       Num(cross.count) + " of " + Num(static_cast<double>(p.dirs.size())) +
           " directories were looked up or listed on a node that made neither them nor their entries (\"/\" never "
           "counts)" +
           cross.Text());
}

}  // namespace

void AddFileSignals(const Profile& p, std::vector<Signal>* out) {
  if (!p.has_files) return;
  FileStats s;
  for (const FileRecord& f : p.files) {
    CountUse(f, &s);
    CountCrossRank(f, &s);
    if (p.has_nodes) CountNodes(f, &s);
  }
  EmitWriters(p, s, out);
  EmitCrossRank(s, out);
  if (p.has_nodes) EmitNodes(p, s, out);
}

void AddDirSignals(const Profile& p, std::vector<Signal>* out) {
  if (p.has_namespace) {
    const DirRecord *most_listed = nullptr, *most_creates = nullptr;
    for (const DirRecord& d : p.dirs) {
      if (!most_listed || d.readdirs > most_listed->readdirs) most_listed = &d;
      if (!most_creates || d.creates > most_creates->creates) most_creates = &d;
    }
    auto creates = static_cast<double>(p.totals.creates), readdirs = static_cast<double>(p.totals.readdirs);
    Emit(out, "profile.creates", creates,
         Num(creates) + " files and directories created in " + Num(static_cast<double>(p.dirs.size())) +
             " directories" +
             (most_creates && most_creates->creates > 0
                  ? "; the most in " + most_creates->path + " (" + Num(static_cast<double>(most_creates->creates)) + ")"
                  : ""));
    Emit(out, "profile.readdirs", readdirs,
         Num(readdirs) + " directory listings" +
             (most_listed && most_listed->readdirs > 0
                  ? "; the most of " + most_listed->path + " (" + Num(static_cast<double>(most_listed->readdirs)) + ")"
                  : ""));
  }
  if (p.has_nodes) EmitDirNodes(p, out);
}

}  // namespace bb::modeselect::profile_signals
