// Workspaces (bbctl job start/stop/list) and statistics (bbctl stats), through the daemons'
// control sockets (fs/daemon/control.h).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "fs/core/placement/workspace.h"
#include "fs/daemon/control.h"
#include "fs/daemon/metrics.h"
#include "tools/bbctl/cluster.h"
#include "tools/config/mode_file.h"

namespace bb::ctl {
namespace {

using nlohmann::json;

constexpr int kQuickMs = 10000;
constexpr int kLongMs = 600000;  // removing a large workspace takes a while

}  // namespace

// The daemons' control sockets, by node: <root>/bbd.sock of one daemon, the nodes of a cluster
// that `bbctl start --root` or `bbctl emulate up --root` started, or those of the one burst
// buffer running here when no root is given.
Result<std::vector<std::string>> DaemonSockets(const std::string& root) {
  if (root.empty()) {
    BB_ASSIGN_OR_RETURN(RunningCluster cluster, TheRunningCluster());
    return cluster.sockets;
  }
  std::error_code ec;
  if (auto e = ReadEmulated(); e && std::filesystem::equivalent(e->root, root, ec)) {
    std::vector<std::string> out;
    for (int i = 0; i < e->nodes; ++i) out.push_back(root + "/node" + std::to_string(i) + "/bbd.sock");
    return out;
  }
  // A daemon's root is its owner's alone (0700): another user may not even look for the socket.
  if (std::filesystem::exists(root + "/bbd.sock", ec)) return std::vector<std::string>{root + "/bbd.sock"};
  if (ec == std::errc::permission_denied) {
    return Status(EACCES, "cannot look into " + root + ", which only the daemon's owner (and root) may read");
  }
  auto n = LocalClusterNodes(root);
  if (!n) {
    return Status(ENOENT, "no daemon at " + root + " (no " + root + "/bbd.sock) and no cluster started there");
  }
  std::vector<std::string> out;
  for (int i = 0; i < *n; ++i) out.push_back(root + "/node" + std::to_string(i) + "/bbd.sock");
  return out;
}

Result<json> Ask(const std::string& socket, const json& request, int timeout_ms) {
  BB_ASSIGN_OR_RETURN(json reply, fs::ControlCall(socket, request, timeout_ms));
  if (!reply.value("ok", false)) {
    int code = reply.value("errno", EIO);
    return Status(code ? code : EIO, reply.value("error", std::string("request failed")));
  }
  return reply;
}

json JobStartRequest(const std::string& name, const config::ModeFile& mode) {
  json request = {{"cmd", "job_start"},
                  {"name", name},
                  {"mode", fs::ModeNumber(mode.spec.layout.mode)},
                  {"chunk_size", mode.spec.chunk_size},
                  {"confidence", mode.confidence},
                  {"reason", mode.reason},
                  {"selected_by", mode.selected_by}};
  if (fs::ModeOf(mode.spec.layout.mode).uses_metadata_ratio) {
    request["metadata_server_ratio"] = mode.spec.layout.metadata_server_ratio;
  }
  return request;
}

Status JobStart(const std::string& root, const std::string& name, const std::string& mode_file) {
  // Read and checked here, so a bad file changes nothing and the error names its line; the
  // daemon is given the parsed fields.
  BB_ASSIGN_OR_RETURN(config::ModeFile mode, config::LoadModeFile(mode_file));
  BB_RETURN_IF_ERROR(fs::ValidateWorkspaceName(name));
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  BB_ASSIGN_OR_RETURN(json reply, Ask(sockets.front(), JobStartRequest(name, mode), kLongMs));
  const fs::ModeInfo& info = fs::ModeOf(mode.spec.layout.mode);
  std::printf("bbctl: workspace %s ready at %s: mode %d (%s), chunk size %u%s\n", name.c_str(),
              reply.value("path", std::string("?")).c_str(), fs::ModeNumber(info.mode), info.name,
              reply.value("chunk_size", 0u),
              info.node_private ? " (node-private: each node sees only its own files)" : "");
  return Status::Ok();
}

Status JobStop(const std::string& root, const std::string& name) {
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  BB_RETURN_IF_ERROR(Ask(sockets.front(), {{"cmd", "job_stop"}, {"name", name}}, kLongMs).status());
  std::printf("bbctl: workspace %s removed\n", name.c_str());
  return Status::Ok();
}

Status JobList(const std::string& root, bool as_json) {
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  BB_ASSIGN_OR_RETURN(json reply, Ask(sockets.front(), {{"cmd", "job_list"}}, kQuickMs));
  if (as_json) {
    std::cout << reply["jobs"].dump(2) << "\n";
    return Status::Ok();
  }
  std::printf("%-20s %-5s %-11s %-6s %s\n", "name", "mode", "chunk_size", "ratio", "path");
  for (const auto& j : reply["jobs"]) {
    std::string ratio = j.contains("metadata_server_ratio")
                            ? std::to_string(j["metadata_server_ratio"].get<double>()).substr(0, 4)
                            : "-";
    std::printf("%-20s %-5d %-11u %-6s %s\n", j.value("name", std::string()).c_str(), j.value("mode", 0),
                j.value("chunk_size", 0u), ratio.c_str(), j.value("path", std::string()).c_str());
  }
  return Status::Ok();
}

Status DropCaches(const std::string& root, int node) {
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  if (node >= static_cast<int>(sockets.size())) {
    return Status(EINVAL, "no node " + std::to_string(node) + " (there are " + std::to_string(sockets.size()) + ")");
  }
  for (size_t i = 0; i < sockets.size(); ++i) {
    if (node >= 0 && static_cast<int>(i) != node) continue;
    BB_RETURN_IF_ERROR(
        Ask(sockets[i], {{"cmd", "drop_caches"}}, kQuickMs).status().Annotate("node " + std::to_string(i)));
  }
  std::printf("bbctl: caches dropped on %s\n", node >= 0 ? ("node " + std::to_string(node)).c_str() : "every node");
  return Status::Ok();
}

Status Stats(const std::string& root, int node, bool as_json, bool as_prometheus) {
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  if (node >= static_cast<int>(sockets.size())) {
    return Status(EINVAL, "no node " + std::to_string(node) + " (there are " + std::to_string(sockets.size()) + ")");
  }
  json all = json::array();
  for (size_t i = 0; i < sockets.size(); ++i) {
    if (node >= 0 && static_cast<int>(i) != node) continue;
    auto reply = Ask(sockets[i], {{"cmd", "stats"}}, kQuickMs);
    if (!reply) return reply.error().Annotate("node " + std::to_string(i));
    reply->erase("ok");
    all.push_back(*reply);
  }
  if (as_json) {
    std::cout << (node >= 0 ? all[0].dump(2) : all.dump(2)) << "\n";
    return Status::Ok();
  }
  if (as_prometheus) {
    std::cout << fs::MetricsText(std::vector<json>(all.begin(), all.end()));
    return Status::Ok();
  }
  for (const auto& s : all) {
    std::printf("node %u of %u\n  operations:", s.value("node", 0u), s.value("nodes", 0u));
    for (const auto& [op, count] : s["ops"].items()) {
      if (count.get<uint64_t>() > 0)
        std::printf(" %s=%llu", op.c_str(), static_cast<unsigned long long>(count.get<uint64_t>()));
    }
    std::printf("\n  replicated entries read locally: %llu\n",
                static_cast<unsigned long long>(s.value("replicated_reads", uint64_t{0})));
    std::printf("  %-8s %14s %14s %16s %16s\n", "to node", "meta requests", "data requests", "read bytes",
                "write bytes");
    for (const auto& t : s["to"]) {
      std::printf("  %-8u %14llu %14llu %16llu %16llu\n", t.value("node", 0u),
                  static_cast<unsigned long long>(t.value("meta_requests", uint64_t{0})),
                  static_cast<unsigned long long>(t.value("data_requests", uint64_t{0})),
                  static_cast<unsigned long long>(t.value("read_bytes", uint64_t{0})),
                  static_cast<unsigned long long>(t.value("write_bytes", uint64_t{0})));
    }
    const auto& sv = s["served"];
    std::printf("  served by this node: %llu metadata ops, %llu data ops, %llu bytes read, %llu bytes written\n",
                static_cast<unsigned long long>(sv.value("meta_ops", uint64_t{0})),
                static_cast<unsigned long long>(sv.value("data_ops", uint64_t{0})),
                static_cast<unsigned long long>(sv.value("read_bytes", uint64_t{0})),
                static_cast<unsigned long long>(sv.value("write_bytes", uint64_t{0})));
    if (!s["peers"].empty()) {
      std::printf("  %-8s %12s %12s %16s %16s %14s\n", "peer", "RPCs sent", "failed", "bytes sent", "bytes received",
                  "RPCs received");
      for (const auto& p : s["peers"]) {
        std::printf("  %-8u %12llu %12llu %16llu %16llu %14llu\n", p.value("peer", 0u),
                    static_cast<unsigned long long>(p.value("calls_sent", uint64_t{0})),
                    static_cast<unsigned long long>(p.value("calls_failed", uint64_t{0})),
                    static_cast<unsigned long long>(p.value("bytes_sent", uint64_t{0})),
                    static_cast<unsigned long long>(p.value("bytes_received", uint64_t{0})),
                    static_cast<unsigned long long>(p.value("requests_received", uint64_t{0})));
      }
    }
  }
  return Status::Ok();
}

}  // namespace bb::ctl
