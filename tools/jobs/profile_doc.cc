#include "tools/jobs/profile_doc.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace bb::jobs {
namespace {

using nlohmann::json;

constexpr const char* kFileSums[] = {
    "opens",         "reads", "writes", "bytes_read", "bytes_written", "seq_reads", "consec_reads", "seq_writes",
    "consec_writes", "seeks", "stats",  "fsyncs",     "truncates",     "renames",   "unlinks",      "append_writes"};
constexpr const char* kDirSums[] = {"creates", "unlinks", "lookups", "readdirs"};
constexpr const char* kBucketSums[] = {"meta_ops", "data_ops", "bytes_read", "bytes_written"};

uint64_t U(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

double D(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}

bool B(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

struct FileAcc {
  json out = json::object();
  std::set<uint32_t> opened, writers_n, readers_n, stat;
  std::set<std::string> writers, readers;
  std::optional<uint32_t> created_on;
  double last_seen = -1;  // the path of the node that touched the file last wins
};

struct DirAcc {
  json out = json::object();
  std::set<uint32_t> entries, lookups, readdirs;
  std::optional<uint32_t> created_on;
};

json Nullable(const std::optional<uint32_t>& n) { return n ? json(*n) : json(nullptr); }

Status AddFile(uint32_t node, const json& f, std::map<uint64_t, FileAcc>* files) {
  if (!f.is_object() || !f.contains("file_id") || !f["file_id"].is_number_unsigned()) {
    return Status(EPROTO, "node " + std::to_string(node) + ": a file without a file_id");
  }
  FileAcc& a = (*files)[f["file_id"].get<uint64_t>()];
  for (const char* k : kFileSums) a.out[k] = U(a.out, k) + U(f, k);
  for (const char* bins : {"read_sizes", "write_sizes"}) {
    json sum = a.out.contains(bins) ? a.out[bins] : json(std::vector<uint64_t>(10, 0));
    const json& add = f.contains(bins) && f[bins].is_array() ? f[bins] : json::array();
    for (size_t i = 0; i < 10 && i < add.size(); ++i) {
      if (add[i].is_number_unsigned()) sum[i] = sum[i].get<uint64_t>() + add[i].get<uint64_t>();
    }
    a.out[bins] = sum;
  }
  a.out["max_offset"] = std::max(U(a.out, "max_offset"), U(f, "max_offset"));
  double first = D(f, "first_unix"), last = D(f, "last_unix");
  a.out["first_unix"] = a.out.contains("first_unix") ? std::min(D(a.out, "first_unix"), first) : first;
  a.out["last_unix"] = std::max(D(a.out, "last_unix"), last);
  if (last >= a.last_seen && f.contains("path") && f["path"].is_string()) {
    a.out["path"] = f["path"];
    a.last_seen = last;
  }
  if (B(f, "created")) a.created_on = node;
  if (B(f, "opened")) a.opened.insert(node);
  if (B(f, "written")) a.writers_n.insert(node);
  if (B(f, "read")) a.readers_n.insert(node);
  if (B(f, "stat")) a.stat.insert(node);
  for (auto [key, into] : {std::pair{"writers", &a.writers}, std::pair{"readers", &a.readers}}) {
    if (!f.contains(key) || !f[key].is_array()) continue;
    for (const json& pid : f[key]) into->insert(std::to_string(node) + ":" + std::to_string(pid.get<int64_t>()));
  }
  return Status::Ok();
}

void AddDir(uint32_t node, const json& d, std::map<std::string, DirAcc>* dirs) {
  if (!d.is_object() || !d.contains("path") || !d["path"].is_string()) return;
  DirAcc& a = (*dirs)[d["path"].get<std::string>()];
  a.out["path"] = d["path"];
  for (const char* k : kDirSums) a.out[k] = U(a.out, k) + U(d, k);
  if (B(d, "created")) a.created_on = node;
  if (B(d, "made_entries")) a.entries.insert(node);
  if (B(d, "looked_up")) a.lookups.insert(node);
  if (B(d, "listed")) a.readdirs.insert(node);
}

json FileList(std::map<uint64_t, FileAcc>* files, json* totals) {
  json out = json::array();
  for (auto& [id, a] : *files) {
    for (const char* k : kFileSums) {
      if (std::string_view(k) != "unlinks") (*totals)[k] = U(*totals, k) + U(a.out, k);  // the dirs count them
    }
    a.out["created_on"] = Nullable(a.created_on);
    a.out["opened_on"] = a.opened;
    a.out["writer_nodes"] = a.writers_n;
    a.out["reader_nodes"] = a.readers_n;
    a.out["stat_nodes"] = a.stat;
    a.out["writers"] = a.writers;
    a.out["readers"] = a.readers;
    out.push_back(std::move(a.out));
  }
  return out;
}

json DirList(std::map<std::string, DirAcc>* dirs, json* totals) {
  json out = json::array();
  for (auto& [path, a] : *dirs) {
    for (const char* k : kDirSums) (*totals)[k] = U(*totals, k) + U(a.out, k);
    a.out["created_on"] = Nullable(a.created_on);
    a.out["entry_nodes"] = a.entries;
    a.out["lookup_nodes"] = a.lookups;
    a.out["readdir_nodes"] = a.readdirs;
    out.push_back(std::move(a.out));
  }
  return out;
}

}  // namespace

Result<json> MergeProfiles(const std::vector<json>& nodes, const json& job) {
  std::map<uint64_t, FileAcc> files;
  std::map<std::string, DirAcc> dirs;
  double start = 0;
  for (const json& n : nodes) {
    double s = D(n, "start_unix");
    if (start == 0 || (s > 0 && s < start)) start = s;
  }
  std::map<int64_t, json> buckets;
  for (const json& n : nodes) {
    if (!n.is_object() || !n.contains("node") || !n["node"].is_number_unsigned()) {
      return Status(EPROTO, "a node's profile without its node id");
    }
    uint32_t node = n["node"].get<uint32_t>();
    for (const json& f : n.value("files", json::array())) BB_RETURN_IF_ERROR(AddFile(node, f, &files));
    for (const json& d : n.value("dirs", json::array())) AddDir(node, d, &dirs);
    int64_t shift = static_cast<int64_t>(std::floor(D(n, "start_unix") - start + 0.5));
    int64_t t = 0;
    for (const json& b : n.value("timeline", json::array())) {
      json& into = buckets[t + shift];
      into["t"] = t + shift;
      for (const char* k : kBucketSums) into[k] = U(into, k) + U(b, k);
      ++t;
    }
  }
  json doc = {{"version", kProfileDocVersion}, {"job", job}};
  json totals = {{"files", files.size()}, {"dirs", dirs.size()}};
  json file_list = FileList(&files, &totals);
  json dir_list = DirList(&dirs, &totals);
  json timeline = json::array();
  for (auto& [t, b] : buckets) {
    if (U(b, "meta_ops") + U(b, "data_ops") == 0) continue;
    totals["meta_ops"] = U(totals, "meta_ops") + U(b, "meta_ops");
    totals["data_ops"] = U(totals, "data_ops") + U(b, "data_ops");
    timeline.push_back(b);
  }
  totals["meta_ops"] = U(totals, "meta_ops");
  totals["data_ops"] = U(totals, "data_ops");
  doc["totals"] = totals;
  doc["timeline"] = {{"bucket_seconds", 1}, {"start_unix", start}, {"buckets", timeline}};
  doc["files"] = file_list;
  doc["dirs"] = dir_list;
  return doc;
}

}  // namespace bb::jobs
