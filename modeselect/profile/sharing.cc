// The sharing signals (signals.h defines each): which processes and nodes wrote, read and used
// each file and directory. Every value is a sum of the files' and directories' measures
// (summary.h), taken from the profile's summary; the examples in the `why`s come from the files
// and directories the profile lists (a large run's document lists its top files and an example
// of each class).

#include <algorithm>
#include <set>
#include <string_view>

#include "modeselect/profile/signal_parts.h"

namespace bb::modeselect::profile_signals {
namespace {

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

std::string Of(uint64_t n) { return Num(static_cast<double>(n)); }

// The listed files with their measures.
struct Listed {
  const Profile& p;
  std::vector<FileSums> m;

  Listed(const Profile& profile) : p(profile) {  // NOLINT: a view of the profile
    for (const FileRecord& f : p.files) m.push_back(MeasureFile(f, p.has_nodes));
  }
  // Up to three listed files for which `pick` holds, as `text` makes them, of `total` in all
  // (0: as many as are listed).
  template <typename Pick, typename Text>
  Examples First(Pick pick, Text text, uint64_t total) const {
    Examples ex;
    for (size_t i = 0; i < p.files.size(); ++i) {
      if (pick(m[i])) ex.Add([&] { return text(p.files[i]); });
    }
    ex.count = std::max<size_t>(ex.count, total);
    return ex;
  }
  // The listed file with the largest `metric` among those `pick` holds for, or null.
  template <typename Pick, typename Metric>
  const FileRecord* Most(Pick pick, Metric metric) const {
    const FileRecord* top = nullptr;
    for (size_t i = 0; i < p.files.size(); ++i) {
      if (pick(m[i]) && (!top || metric(p.files[i]) > metric(*top))) top = &p.files[i];
    }
    return top;
  }
};

std::string PathOnly(const FileRecord& f) { return f.path; }

// "X of Y bytes read (Z%) <what>: examples"; absent when no bytes.
void EmitShare(std::vector<Signal>* out, const char* name, double part, double whole, const char* of,
               const std::string& what, const Examples& ex) {
  if (whole <= 0) return;
  Emit(out, name, part / whole,
       Num(part) + " of " + Num(whole) + " bytes " + of + Percent(part, whole) + " " + what + ex.Text());
}

void EmitWriters(const Listed& l, const ProfileSummary& s, const FileSums& t, std::vector<Signal>* out) {
  auto written = [](const FileSums& m) { return m.written > 0; };
  Examples ex = l.First(written, PathOnly, t.written);
  std::string files = " of " + Of(t.files) + " files were ";
  Emit(out, "profile.files_written", static_cast<double>(t.written), Of(t.written) + files + "written" + ex.Text());
  Emit(out, "profile.files_read", static_cast<double>(t.read),
       Of(t.read) + files + "read" + l.First([](const FileSums& m) { return m.read > 0; }, PathOnly, t.read).Text());
  if (t.written > 0) {
    double mean = static_cast<double>(t.writers) / static_cast<double>(t.written);
    const FileRecord* most = l.Most(written, [](const FileRecord& f) { return f.Writers(); });
    Emit(out, "profile.writers_per_file", mean,
         "the " + Of(t.written) + " written files had " + Num(mean) + " writer processes each" +
             (most ? "; the most: " + most->path + " (" + Of(most->Writers()) + ")" : ""));
  }
  double writers = static_cast<double>(std::max<uint64_t>(s.writer_processes, s.shared_writers));
  if (writers > 0) {
    Emit(out, "profile.files_per_writer", static_cast<double>(t.writers) / writers,
         Of(t.writers) + " (file, writer) pairs over " + Num(writers) + " writing processes" +
             (s.shared_writers > 0 ? " (rank -1 records: estimated)" : "") + ex.Text());
  }
  auto shared_read = [](const FileRecord& f) {
    return f.path + " (" + Of(f.Readers()) + " readers" +
           (f.reader_nodes.empty() ? "" : " on nodes " + List(f.reader_nodes)) + ")";
  };
  EmitShare(out, "profile.shared_read_fraction", t.shared_bytes_read, t.BytesRead(), "read",
            "came from files read by more than one process (on more than one node)",
            l.First([](const FileSums& m) { return m.shared_bytes_read > 0; }, shared_read, 0));
  double procs = static_cast<double>(std::max<uint64_t>(s.processes, s.shared_procs));
  std::set<std::string_view> names;
  for (const FileRecord& f : l.p.files) {
    for (const auto* list : {&f.writers, &f.readers}) {
      for (const Process& proc : *list) names.insert(proc.name);
    }
  }
  Examples shown;
  for (std::string_view n : names) shown.Add([n] { return std::string(n); });
  shown.count = std::max(shown.count, static_cast<size_t>(procs));
  Emit(out, "profile.processes", procs,
       Num(procs) + " processes read or wrote files" + (s.shared_procs > 0 ? " (rank -1 records: estimated)" : "") +
           shown.Text());
}

void EmitCrossRank(const Listed& l, const FileSums& t, std::vector<Signal>* out) {
  std::string files = " (" + Of(t.cross_rank) + " files";
  if (t.shared_records > 0)
    files += "; " + Of(t.shared_records) + " with a rank -1 record name no ranks and count as not";
  auto text = [](const FileRecord& f) {
    return f.path + " (written by " + Names(f.writers) + ", read by " + Names(f.readers) + ")";
  };
  EmitShare(out, "profile.cross_rank_read_fraction", t.cross_rank_bytes_read, t.BytesRead(), "read",
            "were read by processes that did not write the file" + files + ")",
            l.First([](const FileSums& m) { return m.cross_rank > 0; }, text, t.cross_rank));
}

void EmitNodes(const Listed& l, const ProfileSummary& s, const FileSums& t, std::vector<Signal>* out) {
  if (t.written > 0) {
    double mean = static_cast<double>(t.writer_nodes) / static_cast<double>(t.written);
    const FileRecord* most = l.Most([](const FileSums& m) { return m.written > 0; },
                                    [](const FileRecord& f) { return f.writer_nodes.size(); });
    Emit(out, "profile.writer_nodes_per_file", mean,
         "the " + Of(t.written) + " written files had " + Num(mean) + " writer nodes each" +
             (most ? "; the most: " + most->path + " (nodes " + List(most->writer_nodes) + ")" : ""));
  }
  auto writers_text = [](const FileRecord& f) { return f.path + " (nodes " + List(f.writer_nodes) + ")"; };
  EmitShare(out, "profile.shared_write_fraction", t.node_shared_bytes, t.BytesWritten(), "written",
            "went to files written from more than one node",
            l.First([](const FileSums& m) { return m.node_shared_bytes > 0; }, writers_text, 0));
  auto read_text = [](const FileRecord& f) {
    return f.path + " (written on " + List(f.writer_nodes) + ", read on " + List(f.reader_nodes) + ")";
  };
  EmitShare(out, "profile.cross_node_read_fraction", t.remote_bytes_read, t.BytesRead(), "read",
            "were read on a node that wrote none of the file (a version 1 profile: a file's read bytes split evenly "
            "over its reader nodes)",
            l.First([](const FileSums& m) { return m.remote_bytes_read > 0; }, read_text, 0));
  auto used_text = [](const FileRecord& f) {
    std::vector<uint32_t> used;
    for (const auto* list : {&f.opened_on, &f.reader_nodes, &f.stat_nodes, &f.writer_nodes}) {
      used.insert(used.end(), list->begin(), list->end());
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    return f.path + " (made on " + (f.created_on ? std::to_string(*f.created_on) : "none") + ", written on " +
           List(f.writer_nodes) + ", used on " + List(used) + ")";
  };
  Emit(out, "profile.cross_node_files", static_cast<double>(t.cross_node),
       Of(t.cross_node) + " of " + Of(t.files) +
           " files were made or written on one node and opened, read, written or stat'ed on another" +
           l.First([](const FileSums& m) { return m.cross_node > 0; }, used_text, t.cross_node).Text());
  if (t.files > 0) {
    auto multi = static_cast<double>(t.multi_node), files = static_cast<double>(t.files);
    Emit(out, "profile.cross_node_file_fraction", multi / files,
         Num(multi) + " of " + Num(files) + " files" + Percent(multi, files) + " were used on more than one node" +
             l.First([](const FileSums& m) { return m.multi_node > 0; }, used_text, t.multi_node).Text());
  }
  Emit(out, "profile.nodes", static_cast<double>(s.nodes.size()),
       Of(s.nodes.size()) + " nodes used files or directories: " + List(s.nodes));
}

// The listed directory with the largest `metric`, or null when none has any.
template <typename Metric>
const DirRecord* MostDir(const Profile& p, Metric metric) {
  const DirRecord* top = nullptr;
  for (const DirRecord& d : p.dirs) {
    if (metric(d) > 0 && (!top || metric(d) > metric(*top))) top = &d;
  }
  return top;
}

void EmitNamespace(const Profile& p, const DirSums& t, std::vector<Signal>* out) {
  const DirRecord* most_creates = MostDir(p, [](const DirRecord& d) { return d.creates; });
  const DirRecord* most_listed = MostDir(p, [](const DirRecord& d) { return d.readdirs; });
  auto creates = static_cast<double>(p.totals.creates), readdirs = static_cast<double>(p.totals.readdirs);
  Emit(out, "profile.creates", creates,
       Num(creates) + " files and directories created in " + Of(t.dirs) + " directories" +
           (most_creates ? "; the most in " + most_creates->path + " (" + Of(most_creates->creates) + ")" : ""));
  Emit(out, "profile.readdirs", readdirs,
       Num(readdirs) + " directory listings" +
           (most_listed ? "; the most of " + most_listed->path + " (" + Of(most_listed->readdirs) + ")" : ""));
  double ops = static_cast<double>(p.totals.meta_ops + p.totals.data_ops);
  if (ops <= 0) return;
  auto contended = static_cast<double>(t.contended_ops);
  Examples ex;
  for (const DirRecord& d : p.dirs) {
    if (MeasureDir(d, 0, 0).contended == 0) continue;
    ex.Add([&] { return d.path + " (" + Of(d.creates) + " entries from nodes " + List(d.entry_nodes) + ")"; });
  }
  ex.count = std::max<size_t>(ex.count, t.contended);
  Emit(out, "profile.shared_dir_meta_share", contended / ops,
       Num(contended) + " of " + Num(ops) + " operations" + Percent(contended, ops) + " were in " + Of(t.contended) +
           " directories where " + Of(kContendedNodes) + " or more nodes created " + Of(kContendedCreates) +
           " or more entries (creates, lookups, listings, unlinks, and the opens and stats of their files)" +
           ex.Text());
}

void EmitDirNodes(const Profile& p, const DirSums& t, std::vector<Signal>* out) {
  const DirRecord* most_nodes = nullptr;
  for (const DirRecord& d : p.dirs) {
    if (!most_nodes || d.entry_nodes.size() > most_nodes->entry_nodes.size()) most_nodes = &d;
  }
  auto nodes = static_cast<double>(t.max_entry_nodes);
  Emit(out, "profile.shared_dir_creator_nodes", nodes,
       t.dirs == 0  ? "no directory was used"
       : most_nodes ? most_nodes->path + " had entries created from " + Num(nodes) + " nodes (" +
                          List(most_nodes->entry_nodes) + ")"
                    : Num(nodes) + " nodes created entries in one directory");
  Examples cross;
  for (const DirRecord& d : p.dirs) {
    if (MeasureDir(d, 0, 0).cross_node == 0) continue;
    cross.Add([&] {
      return d.path + " (entries from " + List(d.entry_nodes) + ", listed on " + List(d.readdir_nodes) + ")";
    });
  }
  cross.count = std::max<size_t>(cross.count, t.cross_node);
  Emit(out, "profile.cross_node_dirs", static_cast<double>(t.cross_node),
       Of(t.cross_node) + " of " + Of(t.dirs) +
           " directories were listed on a node while another node made entries in them (\"/\" never counts)" +
           cross.Text());
  Examples parents;
  for (const DirRecord& d : p.dirs) {
    if (MeasureDir(d, 0, 0).common_parent == 0) continue;
    parents.Add([&] {
      return d.path + " (made on " + std::to_string(*d.created_on) + ", entries from " + List(d.entry_nodes) + ")";
    });
  }
  parents.count = std::max<size_t>(parents.count, t.common_parent);
  Emit(out, "profile.common_parent_dirs", static_cast<double>(t.common_parent),
       Of(t.common_parent) + " of " + Of(t.dirs) +
           " directories were made on one node and given entries by others (node-local mode needs every node to make "
           "them itself)" +
           parents.Text());
}

}  // namespace

void AddFileSignals(const Profile& p, const ProfileSummary& s, std::vector<Signal>* out) {
  if (!p.has_files) return;
  Listed l(p);
  FileSums t = s.FileTotals();
  EmitWriters(l, s, t, out);
  EmitCrossRank(l, t, out);
  if (p.has_nodes) EmitNodes(l, s, t, out);
}

void AddDirSignals(const Profile& p, const ProfileSummary& s, std::vector<Signal>* out) {
  DirSums t = s.DirTotals();
  if (p.has_namespace) EmitNamespace(p, t, out);
  if (p.has_nodes) EmitDirNodes(p, t, out);
}

}  // namespace bb::modeselect::profile_signals
