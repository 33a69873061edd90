#include "fs/daemon/profile_json.h"

#include <algorithm>

namespace bb::fs {
namespace {

using nlohmann::json;

double Unix(int64_t ns) { return static_cast<double>(ns) / 1e9; }

// Only what is not zero, false or empty: a node's reply names every file it touched, and most
// of a metadata-heavy run's counters are 0 (bbctl reads a missing key as 0, false or []).
void Put(json* j, const char* key, uint64_t v) {
  if (v != 0) (*j)[key] = v;
}
void Put(json* j, const char* key, bool v) {
  if (v) (*j)[key] = true;
}
template <typename List>
void PutList(json* j, const char* key, const List& v) {
  if (std::any_of(v.begin(), v.end(), [](const auto& x) { return x != 0; })) (*j)[key] = v;
}

json FileJson(uint64_t id, const FileProfile& f) {
  json j = {{"file_id", id}, {"path", f.path}, {"first_unix", Unix(f.first_ns)}, {"last_unix", Unix(f.last_ns)}};
  for (auto [key, v] :
       {std::pair{"opens", f.opens}, std::pair{"reads", f.reads}, std::pair{"writes", f.writes},
        std::pair{"bytes_read", f.bytes_read}, std::pair{"bytes_written", f.bytes_written},
        std::pair{"seq_reads", f.seq_reads}, std::pair{"consec_reads", f.consec_reads},
        std::pair{"seq_writes", f.seq_writes}, std::pair{"consec_writes", f.consec_writes}, std::pair{"seeks", f.seeks},
        std::pair{"stats", f.stats}, std::pair{"fsyncs", f.fsyncs}, std::pair{"truncates", f.truncates},
        std::pair{"renames", f.renames}, std::pair{"unlinks", f.unlinks}, std::pair{"append_writes", f.append_writes},
        std::pair{"max_offset", f.max_offset}}) {
    Put(&j, key, v);
  }
  PutList(&j, "read_sizes", f.read_sizes);
  PutList(&j, "write_sizes", f.write_sizes);
  for (auto [key, v] : {std::pair{"created", f.created}, std::pair{"opened", f.opened}, std::pair{"written", f.written},
                        std::pair{"read", f.read}, std::pair{"stat", f.stat}}) {
    Put(&j, key, v);
  }
  if (!f.writers.empty()) j["writers"] = f.writers;
  if (!f.readers.empty()) j["readers"] = f.readers;
  return j;
}

}  // namespace

nlohmann::json ProfileJson(const ProfileSnapshot& p) {
  json files = json::array();
  for (const auto& [id, f] : p.files) files.push_back(FileJson(id, f));
  json dirs = json::array();
  for (const auto& [path, d] : p.dirs) {
    json j = {{"path", d.path}};
    for (auto [key, v] : {std::pair{"creates", d.creates}, std::pair{"unlinks", d.unlinks},
                          std::pair{"lookups", d.lookups}, std::pair{"readdirs", d.readdirs}}) {
      Put(&j, key, v);
    }
    for (auto [key, v] : {std::pair{"created", d.created}, std::pair{"made_entries", d.made_entries},
                          std::pair{"looked_up", d.looked_up}, std::pair{"listed", d.listed}}) {
      Put(&j, key, v);
    }
    dirs.push_back(std::move(j));
  }
  json timeline = json::array();
  for (const TimeBucket& b : p.timeline) {
    timeline.push_back({{"meta_ops", b.meta_ops},
                        {"data_ops", b.data_ops},
                        {"bytes_read", b.bytes_read},
                        {"bytes_written", b.bytes_written}});
  }
  return {{"node", p.node}, {"start_unix", Unix(p.start_ns)}, {"files", files}, {"dirs", dirs}, {"timeline", timeline}};
}

}  // namespace bb::fs
