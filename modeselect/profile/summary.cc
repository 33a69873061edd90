// Summarise and KeepTop (summary.h): the measures of each file and directory (signals.h defines
// them), summed by pattern.

#include "modeselect/profile/summary.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace bb::modeselect {
namespace {

bool Has(const std::vector<uint32_t>& sorted, uint32_t n) {
  return std::binary_search(sorted.begin(), sorted.end(), n);
}

// The Darshan bin of `bytes` (profile.h's edges).
int SizeClass(uint64_t bytes) {
  constexpr uint64_t kUpper[] = {100, 1024, 10240, 102400, 1 << 20, 4 << 20, 10ULL << 20, 100ULL << 20, 1ULL << 30};
  for (size_t i = 0; i < std::size(kUpper); ++i) {
    if (bytes < kUpper[i]) return static_cast<int>(i);
  }
  return static_cast<int>(kSizeBinCount - 1);
}

std::string AccessOf(const IoCounts& io) {
  uint64_t ops = io.reads + io.writes, seq = io.seq_reads + io.seq_writes;
  if (ops == 0) return "none";
  if (io.writes > 0 && 2 * io.append_writes > io.writes) return "append";
  return 2 * (ops > seq ? ops - seq : 0) > ops ? "random" : "sequential";
}

// The low end of `n`'s power-of-two range: 0, 1, 2, 3 (3-4), 5 (5-8), 9 (9-16), ...
uint32_t Range(uint32_t n) { return n <= 2 ? n : (1u << (std::bit_width(n - 1) - 1)) + 1; }

uint64_t Ops(const IoCounts& io) {
  return io.opens + io.reads + io.writes + io.stats + io.fsyncs + io.truncates + io.renames + io.unlinks;
}
uint64_t Ops(const DirRecord& d) { return d.creates + d.unlinks + d.lookups + d.readdirs; }

// The bytes read by processes of `f` that did not write it: a reader's own bytes when known,
// else an even share of the file's.
double CrossRankBytes(const FileRecord& f) {
  if (f.shared_record || f.writers.empty() || f.readers.empty()) return 0;
  double even_share = static_cast<double>(f.BytesRead()) / static_cast<double>(f.readers.size());
  double bytes = 0;
  for (const Process& r : f.readers) {
    bool writer = std::any_of(f.writers.begin(), f.writers.end(), [&](const Process& w) { return w.name == r.name; });
    if (!writer) bytes += r.bytes ? static_cast<double>(*r.bytes) : even_share;
  }
  return std::min(bytes, static_cast<double>(f.BytesRead()));
}

// Every node that made (created or wrote) or used `f`, sorted.
std::vector<uint32_t> AllNodes(const FileRecord& f) {
  std::vector<uint32_t> all;
  for (const auto* list : {&f.writer_nodes, &f.opened_on, &f.reader_nodes, &f.stat_nodes}) {
    all.insert(all.end(), list->begin(), list->end());
  }
  if (f.created_on) all.push_back(*f.created_on);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

void MeasureNodes(const FileRecord& f, FileSums* s) {
  double br = static_cast<double>(f.BytesRead());
  if (f.writer_nodes.size() > 1) s->node_shared_bytes = static_cast<double>(f.BytesWritten());
  size_t remote_readers = 0;
  for (uint32_t n : f.reader_nodes) remote_readers += !Has(f.writer_nodes, n);
  if (!f.writer_nodes.empty() && br > 0) {
    s->remote_bytes_read = f.remote_bytes_read ? static_cast<double>(*f.remote_bytes_read)
                           : f.reader_nodes.empty()
                               ? 0
                               : br * static_cast<double>(remote_readers) / static_cast<double>(f.reader_nodes.size());
  }
  bool made = f.created_on || !f.writer_nodes.empty();
  size_t all = AllNodes(f).size();
  // Made on m and used on u != m: with one maker, a user elsewhere; with several (a writer is a
  // user too), any use.
  s->cross_node = made && all > 1;
  s->multi_node = all > 1;
}

// A listing on node l of a directory with entries made on e != l: what l saw in it came (also)
// from another node.
bool ListedElsewhere(const DirRecord& d) {
  for (uint32_t l : d.readdir_nodes) {
    if (std::any_of(d.entry_nodes.begin(), d.entry_nodes.end(), [l](uint32_t e) { return e != l; })) return true;
  }
  return false;
}

// Where the leftover classes go, and the coarser patterns of each level.
FilePattern Coarser(FilePattern p, int level) {
  if (level >= 1) {
    for (uint32_t* n : {&p.writer_nodes, &p.reader_nodes, &p.remote_reader_nodes, &p.nodes, &p.writers, &p.readers}) {
      *n = Range(*n);
    }
    p.coarse = true;
  }
  if (level >= 2) {
    p.size_class = -1;
    p.access = "mixed";
  }
  return level >= 3 ? FilePattern{.coarse = true} : p;
}
DirPattern Coarser(DirPattern p, int level) {
  if (level >= 1) {
    p.entry_nodes = Range(p.entry_nodes);
    p.coarse = true;
  }
  if (level >= 2) p.creates_class = -1;
  return level >= 3 ? DirPattern{.coarse = true} : p;
}

void Combine(FileSums* into, const FileSums& s) { into->Add(s); }
void Combine(DirSums* into, const DirSums& s) { into->Add(s); }

// Classes being built: each with the size of its example (bytes, then operations), which the
// largest keeps.
using Weight = std::pair<double, double>;
template <typename Class>
struct Building {
  Class c;
  Weight example_weight{-1, -1};
};

template <typename Class, typename Pattern = decltype(Class::pattern)>
void AddTo(std::map<Pattern, Building<Class>>* classes, const Pattern& pattern, const decltype(Class::sums)& sums,
           const std::string& example, Weight weight) {
  Building<Class>& b = (*classes)[pattern];
  b.c.pattern = pattern;
  Combine(&b.c.sums, sums);
  if (weight > b.example_weight || (weight == b.example_weight && example < b.c.example)) {
    b.c.example = example;
    b.example_weight = weight;
  }
}

// Coarser levels until at most `max` classes; the smallest left over share the last one.
template <typename Class, typename Pattern = decltype(Class::pattern)>
std::vector<Class> Limit(std::map<Pattern, Building<Class>> classes, size_t max, uint64_t(count)(const Class&)) {
  for (int level = 1; level <= 2 && classes.size() > max; ++level) {
    std::map<Pattern, Building<Class>> coarse;
    for (auto& [p, b] : classes) AddTo(&coarse, Coarser(p, level), b.c.sums, b.c.example, b.example_weight);
    classes = std::move(coarse);
  }
  std::vector<Building<Class>> list;
  for (auto& [p, b] : classes) list.push_back(std::move(b));
  auto larger = [&](const auto& x, const auto& y) { return count(x.c) > count(y.c); };
  std::stable_sort(list.begin(), list.end(), larger);
  if (max > 0 && list.size() > max) {
    std::map<Pattern, Building<Class>> rest;
    for (size_t i = max - 1; i < list.size(); ++i) {
      AddTo(&rest, Coarser(list[i].c.pattern, 3), list[i].c.sums, list[i].c.example, list[i].example_weight);
    }
    list.resize(max - 1);
    list.push_back(std::move(rest.begin()->second));
    std::stable_sort(list.begin(), list.end(), larger);
  }
  std::vector<Class> out;
  for (auto& b : list) out.push_back(std::move(b.c));
  return out;
}

uint64_t FileCount(const FileClass& c) { return c.sums.files; }
uint64_t DirCount(const DirClass& c) { return c.sums.dirs; }

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

void CountWho(const Profile& p, ProfileSummary* s) {
  std::unordered_set<std::string_view> names, writers;
  std::set<uint32_t> nodes;
  for (const FileRecord& f : p.files) {
    for (const Process& w : f.writers) writers.insert(w.name), names.insert(w.name);
    for (const Process& r : f.readers) names.insert(r.name);
    s->shared_writers = std::max(s->shared_writers, f.shared_writers);
    s->shared_procs = std::max({s->shared_procs, f.shared_writers, f.shared_readers});
    if (p.has_nodes) {
      std::vector<uint32_t> all = AllNodes(f);
      nodes.insert(all.begin(), all.end());
    }
  }
  for (const DirRecord& d : p.dirs) {
    for (const auto* list : {&d.entry_nodes, &d.lookup_nodes, &d.readdir_nodes})
      nodes.insert(list->begin(), list->end());
    if (d.created_on) nodes.insert(*d.created_on);
  }
  s->processes = names.size();
  s->writer_processes = writers.size();
  s->nodes.assign(nodes.begin(), nodes.end());
}

}  // namespace

void FileSums::Add(const FileSums& o) {
  for (uint64_t FileSums::*m :
       {&FileSums::files, &FileSums::written, &FileSums::read, &FileSums::writers, &FileSums::writer_nodes,
        &FileSums::cross_node, &FileSums::multi_node, &FileSums::cross_rank, &FileSums::shared_records,
        &FileSums::stream_bytes_read, &FileSums::stream_bytes_written}) {
    this->*m += o.*m;
  }
  for (double FileSums::*m : {&FileSums::node_shared_bytes, &FileSums::remote_bytes_read,
                              &FileSums::cross_rank_bytes_read, &FileSums::shared_bytes_read}) {
    this->*m += o.*m;
  }
  for (uint64_t IoCounts::*m :
       {&IoCounts::opens, &IoCounts::reads, &IoCounts::writes, &IoCounts::bytes_read, &IoCounts::bytes_written,
        &IoCounts::seq_reads, &IoCounts::consec_reads, &IoCounts::seq_writes, &IoCounts::consec_writes,
        &IoCounts::seeks, &IoCounts::stats, &IoCounts::fsyncs, &IoCounts::truncates, &IoCounts::renames,
        &IoCounts::unlinks, &IoCounts::append_writes}) {
    io.*m += o.io.*m;
  }
  for (size_t b = 0; b < kSizeBinCount; ++b) {
    io.read_sizes[b] += o.io.read_sizes[b];
    io.write_sizes[b] += o.io.write_sizes[b];
  }
  io.max_offset = std::max(io.max_offset, o.io.max_offset);
}

void DirSums::Add(const DirSums& o) {
  for (uint64_t DirSums::*m : {&DirSums::dirs, &DirSums::creates, &DirSums::unlinks, &DirSums::lookups,
                               &DirSums::readdirs, &DirSums::file_opens, &DirSums::file_stats, &DirSums::cross_node,
                               &DirSums::common_parent, &DirSums::contended, &DirSums::contended_ops}) {
    this->*m += o.*m;
  }
  max_entry_nodes = std::max(max_entry_nodes, o.max_entry_nodes);
}

FileSums ProfileSummary::FileTotals() const {
  FileSums t;
  for (const FileClass& c : files) t.Add(c.sums);
  return t;
}

DirSums ProfileSummary::DirTotals() const {
  DirSums t;
  for (const DirClass& c : dirs) t.Add(c.sums);
  return t;
}

FileSums MeasureFile(const FileRecord& f, bool has_nodes) {
  FileSums s;
  s.files = 1;
  s.io = f.io;
  s.stream_bytes_read = f.stream_bytes_read;
  s.stream_bytes_written = f.stream_bytes_written;
  s.shared_records = f.shared_record;
  if (f.Written()) {
    s.written = 1;
    s.writers = f.Writers();
    s.writer_nodes = f.writer_nodes.size();
  }
  s.read = f.Read();
  double br = static_cast<double>(f.BytesRead());
  // One reader node (the probe names nodes; Darshan does not): the file stayed on that node.
  if (f.Readers() > 1 && br > 0 && f.reader_nodes.size() != 1) s.shared_bytes_read = br;
  s.cross_rank_bytes_read = CrossRankBytes(f);
  s.cross_rank = s.cross_rank_bytes_read > 0;
  if (has_nodes) MeasureNodes(f, &s);
  return s;
}

FilePattern PatternOf(const FileRecord& f, bool has_nodes) {
  FilePattern p;
  p.made = !f.created_on ? "before" : f.writer_nodes.empty() || Has(f.writer_nodes, *f.created_on) ? "writer" : "other";
  if (has_nodes) {
    p.writer_nodes = static_cast<uint32_t>(f.writer_nodes.size());
    p.reader_nodes = static_cast<uint32_t>(f.reader_nodes.size());
    for (uint32_t n : f.reader_nodes) p.remote_reader_nodes += !Has(f.writer_nodes, n);
    p.nodes = static_cast<uint32_t>(AllNodes(f).size());
  }
  p.writers = f.Writers();
  p.readers = f.Readers();
  p.size_class = SizeClass(f.io.max_offset);
  p.access = AccessOf(f.io);
  return p;
}

DirSums MeasureDir(const DirRecord& d, uint64_t file_opens, uint64_t file_stats) {
  DirSums s;
  s.dirs = 1;
  s.creates = d.creates;
  s.unlinks = d.unlinks;
  s.lookups = d.lookups;
  s.readdirs = d.readdirs;
  s.file_opens = file_opens;
  s.file_stats = file_stats;
  s.max_entry_nodes = d.entry_nodes.size();
  // The root is every node's (the oracle, bench/harness/labels.py, does not count it either).
  s.cross_node = ListedElsewhere(d) && d.path != "/";
  s.common_parent =
      d.created_on && d.path != "/" &&
      std::any_of(d.entry_nodes.begin(), d.entry_nodes.end(), [&](uint32_t e) { return e != *d.created_on; });
  if (d.entry_nodes.size() >= kContendedNodes && d.creates >= kContendedCreates) {
    s.contended = 1;
    s.contended_ops = Ops(d) + file_opens + file_stats;
  }
  return s;
}

DirPattern PatternOf(const DirRecord& d) {
  DirPattern p;
  p.made = !d.created_on ? "before" : d.entry_nodes.empty() || Has(d.entry_nodes, *d.created_on) ? "maker" : "other";
  p.entry_nodes = static_cast<uint32_t>(d.entry_nodes.size());
  p.listed_elsewhere = ListedElsewhere(d);
  p.creates_class = d.creates == 0 ? 0 : std::bit_width(d.creates);
  return p;
}

ProfileSummary Summarise(const Profile& p, const SummaryLimits& limits) {
  ProfileSummary s;
  CountWho(p, &s);
  std::map<FilePattern, Building<FileClass>> files;
  std::unordered_map<std::string, std::pair<uint64_t, uint64_t>> in_dir;  // opens, stats of its files
  for (const FileRecord& f : p.files) {
    FileSums m = MeasureFile(f, p.has_nodes);
    AddTo(&files, PatternOf(f, p.has_nodes), m, f.path,
          Weight{m.BytesRead() + m.BytesWritten(), static_cast<double>(Ops(f.io))});
    auto& [opens, stats] = in_dir[ParentOf(f.path)];
    opens += f.io.opens;
    stats += f.io.stats;
  }
  std::map<DirPattern, Building<DirClass>> dirs;
  for (const DirRecord& d : p.dirs) {
    auto it = in_dir.find(d.path);
    auto [opens, stats] = it == in_dir.end() ? std::pair<uint64_t, uint64_t>{0, 0} : it->second;
    AddTo(&dirs, PatternOf(d), MeasureDir(d, opens, stats), d.path, Weight{static_cast<double>(Ops(d)), 0});
  }
  s.files = Limit(std::move(files), limits.max_file_classes, FileCount);
  s.dirs = Limit(std::move(dirs), limits.max_dir_classes, DirCount);
  return s;
}

namespace {

// The indices of the `n` largest of `weight` over [0, size).
template <typename Weight>
std::vector<size_t> Largest(size_t size, size_t n, Weight weight) {
  std::vector<size_t> order(size);
  for (size_t i = 0; i < size; ++i) order[i] = i;
  n = std::min(n, size);
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(n), order.end(),
                    [&](size_t a, size_t b) { return weight(a) > weight(b) || (weight(a) == weight(b) && a < b); });
  order.resize(n);
  return order;
}

template <typename Record>
void KeepOnly(std::vector<Record>* records, const std::vector<bool>& keep) {
  std::vector<Record> kept;
  for (size_t i = 0; i < records->size(); ++i) {
    if (keep[i]) kept.push_back(std::move((*records)[i]));
  }
  *records = std::move(kept);
}

}  // namespace

void KeepTop(Profile* p, const ProfileSummary& s, const KeepLimits& limits) {
  if (p->files.size() > limits.all_files_up_to) {
    std::vector<bool> keep(p->files.size());
    std::unordered_set<std::string_view> examples;
    for (const FileClass& c : s.files) examples.insert(c.example);
    const auto& f = p->files;
    for (size_t i :
         Largest(f.size(), limits.top_files, [&](size_t i) { return f[i].BytesRead() + f[i].BytesWritten(); }))
      keep[i] = true;
    for (size_t i : Largest(f.size(), limits.top_files, [&](size_t i) { return Ops(f[i].io); })) keep[i] = true;
    for (size_t i = 0; i < f.size(); ++i) keep[i] = keep[i] || examples.count(f[i].path) > 0;
    KeepOnly(&p->files, keep);
  }
  if (p->dirs.size() > limits.all_dirs_up_to) {
    std::vector<bool> keep(p->dirs.size());
    std::unordered_set<std::string_view> examples;
    for (const DirClass& c : s.dirs) examples.insert(c.example);
    const auto& d = p->dirs;
    for (size_t i : Largest(d.size(), limits.top_dirs, [&](size_t i) { return Ops(d[i]); })) keep[i] = true;
    for (size_t i = 0; i < d.size(); ++i) keep[i] = keep[i] || examples.count(d[i].path) > 0;
    KeepOnly(&p->dirs, keep);
  }
}

}  // namespace bb::modeselect
