#include "tools/bbctl/slurm/burst_history.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fs/base/hash.h"
#include "tools/bbctl/cluster.h"
#include "tools/bbctl/proc.h"
#include "tools/jobs/batch_script.h"
#include "tools/jobs/profile_doc.h"

namespace bb::ctl {
namespace {

using nlohmann::json;

constexpr int kProfileMs = 60000;

std::string Workspace(const BurstJob& j) { return "job" + j.slurm.id; }
std::string Socket(const BurstJob& j) { return j.root + "/bbd.sock"; }

}  // namespace

std::string HistoryKey(const std::string& script_text, size_t nodes) {
  char key[64];
  std::snprintf(key, sizeof key, "%016llx-n%zu", static_cast<unsigned long long>(PlacementHash(script_text)), nodes);
  return key;
}

std::string HistoryPath(const BurstJob& j, const std::string& key) {
  const passwd* pw = ::getpwuid(j.slurm.uid);
  if (pw == nullptr || pw->pw_dir == nullptr || pw->pw_dir[0] != '/') return "";
  return std::string(pw->pw_dir) + "/.cache/bbfs/profiles/" + key + ".json";
}

Status StartProfile(const BurstJob& j) {
  if (j.first) std::ofstream(j.state + "/profiling").flush();
  return Ask(Socket(j), {{"cmd", "profile_start"}, {"name", Workspace(j)}}, kProfileMs).status();
}

Status SaveNodeProfile(const BurstJob& j) {
  if (!Exists(j.state + "/profiling")) return Status::Ok();
  BB_ASSIGN_OR_RETURN(json stats, Ask(Socket(j), {{"cmd", "stats"}}, kProfileMs));
  BB_ASSIGN_OR_RETURN(json reply, Ask(Socket(j), {{"cmd", "profile_stop"}, {"name", Workspace(j)}}, kProfileMs));
  std::string id = std::to_string(stats.value("node", 0u));
  return WritePrivate(j.state + "/profile." + id + ".json", reply["profile"].dump());
}

std::string KeepProfile(const BurstJob& j, const std::string& script_text) {
  if (!Exists(j.state + "/profiling")) return "";
  std::vector<json> nodes;
  for (size_t i = 0; i < j.nodes.size(); ++i) {
    std::ifstream in(j.state + "/profile." + std::to_string(i) + ".json");
    json part = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (part.is_discarded()) return "bb: mode=auto: node " + std::to_string(i) + "'s profile is missing; none kept\n";
    nodes.push_back(std::move(part));
  }
  const std::string key = HistoryKey(script_text, j.nodes.size());
  // The job as the profile document describes it: its shape from its #SBATCH lines, the mode it
  // ran in, its time from the end of stage-in (the workspace's `env`) to now.
  jobs::JobShape shape{static_cast<int>(j.nodes.size()), static_cast<int>(j.nodes.size()), 0};
  if (auto batch = jobs::ParseBatchDirectives(script_text, "script")) {
    if (auto s = jobs::ShapeJob(*batch, static_cast<int>(j.nodes.size()))) shape = *s;
  }
  int mode = 3;
  std::ifstream mode_file(j.state + "/mode.yaml");
  for (std::string line; std::getline(mode_file, line);) {
    if (line.rfind("mode: ", 0) == 0) mode = std::atoi(line.c_str() + 6);
  }
  std::error_code ec;
  auto started = std::filesystem::last_write_time(j.state + "/env", ec);
  double wall =
      ec ? 0.0 : std::chrono::duration<double>(std::filesystem::file_time_type::clock::now() - started).count();
  json job = {{"name", Workspace(j)},
              {"mode", mode},
              {"nodes", j.nodes.size()},
              {"tasks", shape.tasks},
              {"tasks_per_node", shape.tasks_per_node},
              {"wall_seconds", std::max(0.0, wall)},
              {"exit_status", 0},
              {"script", "job " + j.slurm.id + "'s script"},
              {"slurm_job_id", j.slurm.id},
              {"history_key", key}};
  auto doc = jobs::MergeProfiles(nodes, job);
  if (!doc) return "bb: mode=auto: the nodes' profiles do not merge (" + doc.error().message() + "); none kept\n";
  const std::string path = HistoryPath(j, key);
  if (path.empty()) return "bb: mode=auto: the job's user has no home; its profile is not kept\n";
  // Handed over in the user's folder on this node (UserScratch: the state folder may be
  // root-squashed), then copied as the user: the folder and the file are theirs, and a home root
  // may not write is no matter.
  auto scratch = UserScratch(j);
  if (!scratch) return "bb: mode=auto: " + scratch.error().message() + "; the profile is not kept\n";
  const std::string merged = *scratch + "/profile.json";
  Status s = WriteUsers(j, merged, doc->dump(), 0600);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  if (s.ok()) {
    s = RunLogged(AsUser(j, {"sh", "-c", "mkdir -p -- \"$1\" && cp -- \"$2\" \"$3.tmp\" && mv -- \"$3.tmp\" \"$3\"",
                             "sh", dir, merged, path}),
                  "keeping the profile");
  }
  std::filesystem::remove_all(*scratch, ec);
  if (!s.ok()) return "bb: mode=auto: " + s.message() + "\n";
  return "bb: mode=auto: this run's I/O profile is kept for the next run of this script on " +
         std::to_string(j.nodes.size()) + " nodes (" + path + ")\n";
}

}  // namespace bb::ctl
