// Which burst buffer a command without --root means: the one running on this host, when there is
// exactly one (the emulated cluster, a cluster `bbctl start` started, or a lone daemon); none or
// several is an error that names what it found.
#include <filesystem>
#include <map>

#include "tools/bbctl/cluster.h"
#include "tools/bbctl/proc.h"

namespace bb::ctl {

std::vector<RunningCluster> RunningClusters() {
  std::vector<RunningCluster> out;
  std::error_code ec;
  std::string emulated;
  if (auto e = ReadEmulated()) {
    emulated = std::filesystem::weakly_canonical(e->root, ec).string();
    RunningCluster c{e->root, "the emulated cluster, " + std::to_string(e->nodes) + " nodes", {}};
    for (int i = 0; i < e->nodes; ++i) c.sockets.push_back(e->root + "/node" + std::to_string(i) + "/bbd.sock");
    out.push_back(std::move(c));
  }
  std::map<std::string, size_t> started;  // clusters of bbctl start, by root, already listed
  for (const auto& [pid, root] : RunningDaemons()) {
    if (!emulated.empty() && root.rfind(emulated + "/node", 0) == 0) continue;  // a node of the emulated cluster
    std::string parent = std::filesystem::path(root).parent_path().string();
    if (auto n = LocalClusterNodes(parent)) {
      if (started.count(parent)) continue;
      started[parent] = out.size();
      RunningCluster c{parent, "a cluster of " + std::to_string(*n) + " nodes (bbctl start)", {}};
      for (int i = 0; i < *n; ++i) c.sockets.push_back(parent + "/node" + std::to_string(i) + "/bbd.sock");
      out.push_back(std::move(c));
      continue;
    }
    out.push_back(RunningCluster{root, "one daemon (pid " + std::to_string(pid) + ")", {root + "/bbd.sock"}});
  }
  return out;
}

Result<RunningCluster> TheRunningCluster() {
  auto all = RunningClusters();
  if (all.size() == 1) return all.front();
  if (all.empty()) {
    return Status(ENOENT,
                  "no burst buffer runs on this host; name one with --root (a daemon's root, or the --root of bbctl "
                  "start or bbctl emulate up)");
  }
  std::string list;
  for (const auto& c : all) list += (list.empty() ? "" : "; ") + c.root + " (" + c.what + ")";
  return Status(EINVAL, std::to_string(all.size()) + " burst buffers run on this host; name one with --root: " + list);
}

}  // namespace bb::ctl
