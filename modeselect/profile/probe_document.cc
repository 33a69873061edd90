#include "modeselect/profile/probe_document.h"

#include <cmath>

#include "modeselect/profile/json_fields.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

json Nullable(const std::optional<uint32_t>& n) { return n ? json(*n) : json(nullptr); }

json Names(const std::vector<Process>& procs) {
  json out = json::array();
  for (const Process& p : procs) out.push_back(p.name);
  return out;
}

json FileJson(const FileRecord& f) {
  json j = probe_json::CountsJson(f.io);
  j["path"] = f.path;
  j["first_unix"] = f.first_unix;
  j["last_unix"] = f.last_unix;
  j["created_on"] = Nullable(f.created_on);
  j["opened_on"] = f.opened_on;
  j["writer_nodes"] = f.writer_nodes;
  j["reader_nodes"] = f.reader_nodes;
  j["stat_nodes"] = f.stat_nodes;
  j["writers"] = Names(f.writers);
  j["readers"] = Names(f.readers);
  // A profile read from a version 1 document has only the estimate (signals.h).
  j["remote_bytes_read"] =
      f.remote_bytes_read.value_or(static_cast<uint64_t>(std::llround(MeasureFile(f, true).remote_bytes_read)));
  return j;
}

json DirJson(const DirRecord& d) {
  return {{"path", d.path},
          {"creates", d.creates},
          {"unlinks", d.unlinks},
          {"lookups", d.lookups},
          {"readdirs", d.readdirs},
          {"created_on", Nullable(d.created_on)},
          {"entry_nodes", d.entry_nodes},
          {"lookup_nodes", d.lookup_nodes},
          {"readdir_nodes", d.readdir_nodes}};
}

// The file sums only when a file is listed, the directory sums only when a directory is (as
// the reader requires them).
json TotalsJson(const Profile& p, const ProfileSummary& s) {
  const ProfileTotals& t = p.totals;
  json j = {{"files", t.files},       {"dirs", t.dirs},           {"meta_ops", t.meta_ops},
            {"data_ops", t.data_ops}, {"processes", s.processes}, {"writer_processes", s.writer_processes},
            {"nodes", s.nodes}};
  if (!p.files.empty()) {
    for (const IoCountField& c : kIoCountFields) {
      std::string_view key = c.key;
      if (key != "max_offset" && key != "unlinks") j[c.key] = t.io.*c.member;
    }
  }
  if (!p.dirs.empty()) {
    j["unlinks"] = t.io.unlinks;  // the directories count them
    j["creates"] = t.creates;
    j["lookups"] = t.lookups;
    j["readdirs"] = t.readdirs;
  }
  return j;
}

}  // namespace

json ProbeDocument(const Profile& p, const ProfileSummary& s) {
  const ProfileJob& job = p.job;
  json buckets = json::array();
  for (const TimeBucket& b : p.timeline.buckets) {
    buckets.push_back({{"t", b.t},
                       {"meta_ops", b.meta_ops},
                       {"data_ops", b.data_ops},
                       {"bytes_read", b.bytes_read},
                       {"bytes_written", b.bytes_written}});
  }
  json files = json::array(), dirs = json::array();
  for (const FileRecord& f : p.files) files.push_back(FileJson(f));
  for (const DirRecord& d : p.dirs) dirs.push_back(DirJson(d));
  return {{"version", kProbeDocumentVersion},
          {"job",
           {{"name", job.name},
            {"mode", job.mode},
            {"nodes", job.nodes},
            {"tasks", job.tasks},
            {"tasks_per_node", job.tasks_per_node},
            {"wall_seconds", job.wall_seconds.value_or(0)},
            {"exit_status", job.exit_status.value_or(0)},
            {"script", job.script}}},
          {"totals", TotalsJson(p, s)},
          {"timeline",
           {{"bucket_seconds", p.timeline.bucket_seconds}, {"start_unix", job.start_unix}, {"buckets", buckets}}},
          {"files", files},
          {"dirs", dirs},
          {"file_classes", probe_json::FileClassesJson(s)},
          {"dir_classes", probe_json::DirClassesJson(s)}};
}

}  // namespace bb::modeselect
