#include "fs/daemon/profile_json.h"

namespace bb::fs {
namespace {

using nlohmann::json;

double Unix(int64_t ns) { return static_cast<double>(ns) / 1e9; }

json FileJson(uint64_t id, const FileProfile& f) {
  return {{"file_id", id},
          {"path", f.path},
          {"opens", f.opens},
          {"reads", f.reads},
          {"writes", f.writes},
          {"bytes_read", f.bytes_read},
          {"bytes_written", f.bytes_written},
          {"read_sizes", f.read_sizes},
          {"write_sizes", f.write_sizes},
          {"seq_reads", f.seq_reads},
          {"consec_reads", f.consec_reads},
          {"seq_writes", f.seq_writes},
          {"consec_writes", f.consec_writes},
          {"seeks", f.seeks},
          {"stats", f.stats},
          {"fsyncs", f.fsyncs},
          {"truncates", f.truncates},
          {"renames", f.renames},
          {"unlinks", f.unlinks},
          {"append_writes", f.append_writes},
          {"max_offset", f.max_offset},
          {"first_unix", Unix(f.first_ns)},
          {"last_unix", Unix(f.last_ns)},
          {"created", f.created},
          {"opened", f.opened},
          {"written", f.written},
          {"read", f.read},
          {"stat", f.stat},
          {"writers", f.writers},
          {"readers", f.readers}};
}

}  // namespace

nlohmann::json ProfileJson(const ProfileSnapshot& p) {
  json files = json::array();
  for (const auto& [id, f] : p.files) files.push_back(FileJson(id, f));
  json dirs = json::array();
  for (const auto& [path, d] : p.dirs) {
    dirs.push_back({{"path", d.path},
                    {"creates", d.creates},
                    {"unlinks", d.unlinks},
                    {"lookups", d.lookups},
                    {"readdirs", d.readdirs},
                    {"created", d.created},
                    {"made_entries", d.made_entries},
                    {"looked_up", d.looked_up},
                    {"listed", d.listed}});
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
