#include "tools/jobs/profile_doc.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "modeselect/profile/probe_document.h"

namespace bb::jobs {
namespace {

using modeselect::DirRecord;
using modeselect::FileRecord;
using modeselect::IoCounts;
using modeselect::Process;
using nlohmann::json;

// A count: any integer not below 0 (a JSON number from a signed field is stored as signed).
uint64_t U(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  return it->is_number_unsigned() ? it->get<uint64_t>()
                                  : static_cast<uint64_t>(std::max<int64_t>(0, it->get<int64_t>()));
}

double D(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

bool B(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

// One file as the nodes saw it, merged.
struct FileAcc {
  FileRecord r;
  std::set<uint32_t> opened, writer_nodes, reader_nodes, stat;
  std::set<std::string> writers, readers;
  std::map<uint32_t, uint64_t> read_on;  // bytes read per node
  bool seen = false;
  double last_seen = -1;  // the path of the node that touched the file last wins
};

struct DirAcc {
  DirRecord r;
  std::set<uint32_t> entries, lookups, readdirs;
};

template <typename Into>
void AddProcesses(uint32_t node, const json& f, const char* key, Into* into) {
  if (!f.contains(key) || !f[key].is_array()) return;
  for (const json& pid : f[key]) {
    if (pid.is_number_integer()) into->insert(std::to_string(node) + ":" + std::to_string(pid.get<int64_t>()));
  }
}

Status AddFile(uint32_t node, const json& f, std::map<uint64_t, FileAcc>* files) {
  if (!f.is_object() || !f.contains("file_id") || !f["file_id"].is_number_unsigned()) {
    return Status(EPROTO, "node " + std::to_string(node) + ": a file without a file_id");
  }
  FileAcc& a = (*files)[f["file_id"].get<uint64_t>()];
  IoCounts& io = a.r.io;
  for (const modeselect::IoCountField& k : modeselect::kIoCountFields) {
    if (k.member != &IoCounts::max_offset) io.*k.member += U(f, k.key);
  }
  for (auto [key, bins] : {std::pair{"read_sizes", &io.read_sizes}, std::pair{"write_sizes", &io.write_sizes}}) {
    const json& add = f.contains(key) && f[key].is_array() ? f[key] : json::array();
    for (size_t i = 0; i < bins->size() && i < add.size(); ++i) {
      if (add[i].is_number_unsigned()) (*bins)[i] += add[i].get<uint64_t>();
    }
  }
  io.max_offset = std::max(io.max_offset, U(f, "max_offset"));
  double first = D(f, "first_unix"), last = D(f, "last_unix");
  a.r.first_unix = a.seen ? std::min(a.r.first_unix, first) : first;
  a.r.last_unix = std::max(a.r.last_unix, last);
  a.seen = true;
  if (last >= a.last_seen && f.contains("path") && f["path"].is_string()) {
    a.r.path = f["path"].get<std::string>();
    a.last_seen = last;
  }
  if (B(f, "created")) a.r.created_on = node;
  if (B(f, "opened")) a.opened.insert(node);
  if (B(f, "written")) a.writer_nodes.insert(node);
  if (B(f, "read")) a.reader_nodes.insert(node);
  if (B(f, "stat")) a.stat.insert(node);
  a.read_on[node] += U(f, "bytes_read");
  AddProcesses(node, f, "writers", &a.writers);
  AddProcesses(node, f, "readers", &a.readers);
  return Status::Ok();
}

void AddDir(uint32_t node, const json& d, std::map<std::string, DirAcc>* dirs) {
  if (!d.is_object() || !d.contains("path") || !d["path"].is_string()) return;
  DirAcc& a = (*dirs)[d["path"].get<std::string>()];
  a.r.path = d["path"].get<std::string>();
  a.r.creates += U(d, "creates");
  a.r.unlinks += U(d, "unlinks");
  a.r.lookups += U(d, "lookups");
  a.r.readdirs += U(d, "readdirs");
  if (B(d, "created")) a.r.created_on = node;
  if (B(d, "made_entries")) a.entries.insert(node);
  if (B(d, "looked_up")) a.lookups.insert(node);
  if (B(d, "listed")) a.readdirs.insert(node);
}

std::vector<uint32_t> Sorted(const std::set<uint32_t>& s) { return {s.begin(), s.end()}; }
std::vector<Process> Procs(const std::set<std::string>& names) {
  std::vector<Process> out;
  for (const std::string& n : names) out.push_back(Process{n, std::nullopt});
  return out;
}

// The merged file, with the bytes read on nodes that wrote none of it.
FileRecord Finish(FileAcc&& a) {
  FileRecord r = std::move(a.r);
  r.opened_on = Sorted(a.opened);
  r.writer_nodes = Sorted(a.writer_nodes);
  r.reader_nodes = Sorted(a.reader_nodes);
  r.stat_nodes = Sorted(a.stat);
  r.writers = Procs(a.writers);
  r.readers = Procs(a.readers);
  uint64_t remote = 0;
  for (auto [node, bytes] : a.read_on) remote += a.writer_nodes.count(node) ? 0 : bytes;
  r.remote_bytes_read = a.writer_nodes.empty() ? 0 : remote;
  return r;
}

modeselect::ProfileJob JobOf(const json& job) {
  modeselect::ProfileJob j;
  if (!job.is_object()) return j;
  j.name = job.value("name", std::string());
  j.script = job.value("script", std::string());
  j.mode = static_cast<int>(job.value("mode", 0));
  j.nodes = static_cast<uint32_t>(U(job, "nodes"));
  j.tasks = static_cast<uint32_t>(U(job, "tasks"));
  j.tasks_per_node = static_cast<uint32_t>(U(job, "tasks_per_node"));
  j.wall_seconds = D(job, "wall_seconds");
  j.exit_status = static_cast<int>(job.value("exit_status", 0));
  return j;
}

// The nodes' 1-s buckets on one time line from the earliest start; seconds without operations
// left out.
void MergeTimeline(const std::vector<json>& nodes, modeselect::Profile* p) {
  double start = 0;
  for (const json& n : nodes) {
    double s = D(n, "start_unix");
    if (start == 0 || (s > 0 && s < start)) start = s;
  }
  std::map<int64_t, modeselect::TimeBucket> buckets;
  for (const json& n : nodes) {
    int64_t shift = static_cast<int64_t>(std::floor(D(n, "start_unix") - start + 0.5)), t = 0;
    for (const json& b : n.value("timeline", json::array())) {
      modeselect::TimeBucket& into = buckets[t + shift];
      into.t = t + shift;
      into.meta_ops += U(b, "meta_ops");
      into.data_ops += U(b, "data_ops");
      into.bytes_read += U(b, "bytes_read");
      into.bytes_written += U(b, "bytes_written");
      ++t;
    }
  }
  p->job.start_unix = start;
  for (auto& [t, b] : buckets) {
    if (b.meta_ops + b.data_ops == 0) continue;
    p->totals.meta_ops += b.meta_ops;
    p->totals.data_ops += b.data_ops;
    p->timeline.buckets.push_back(b);
  }
}

void AddTotals(modeselect::Profile* p) {
  modeselect::ProfileTotals& t = p->totals;
  t.files = p->files.size();
  t.dirs = p->dirs.size();
  for (const FileRecord& f : p->files) {
    for (const modeselect::IoCountField& k : modeselect::kIoCountFields) {
      // Unlinks are the directories' to count; max_offset is no sum.
      if (k.member != &IoCounts::unlinks && k.member != &IoCounts::max_offset) t.io.*k.member += f.io.*k.member;
    }
  }
  for (const DirRecord& d : p->dirs) {
    t.io.unlinks += d.unlinks;
    t.creates += d.creates;
    t.lookups += d.lookups;
    t.readdirs += d.readdirs;
  }
}

}  // namespace

Result<json> MergeProfiles(const std::vector<json>& nodes, const json& job, const modeselect::KeepLimits& keep) {
  std::map<uint64_t, FileAcc> files;
  std::map<std::string, DirAcc> dirs;
  for (const json& n : nodes) {
    if (!n.is_object() || !n.contains("node") || !n["node"].is_number_unsigned()) {
      return Status(EPROTO, "a node's profile without its node id");
    }
    uint32_t node = n["node"].get<uint32_t>();
    for (const json& f : n.value("files", json::array())) BB_RETURN_IF_ERROR(AddFile(node, f, &files));
    for (const json& d : n.value("dirs", json::array())) AddDir(node, d, &dirs);
  }
  modeselect::Profile p;
  p.source = modeselect::ProfileSource::kProbe;
  p.has_files = p.has_nodes = p.has_namespace = p.has_timeline = true;
  p.job = JobOf(job);
  for (auto& [id, a] : files) p.files.push_back(Finish(std::move(a)));
  for (auto& [path, a] : dirs) {
    a.r.entry_nodes = Sorted(a.entries);
    a.r.lookup_nodes = Sorted(a.lookups);
    a.r.readdir_nodes = Sorted(a.readdirs);
    p.dirs.push_back(std::move(a.r));
  }
  MergeTimeline(nodes, &p);
  AddTotals(&p);
  modeselect::ProfileSummary summary = modeselect::Summarise(p);
  modeselect::KeepTop(&p, summary, keep);
  return modeselect::ProbeDocument(p, summary);
}

}  // namespace bb::jobs
