// bbctl qos: the controller's view (status) and per-daemon limits (set).
#include <cstdio>
#include <iostream>

#include "fs/daemon/control.h"
#include "fs/daemon/hosts_file.h"
#include "qos/client.h"
#include "qos/controller.h"
#include "tools/bbctl/cluster.h"

namespace bb::ctl {
namespace {

using nlohmann::json;

Result<json> AskController(const std::string& address, const std::string& key_file, const json& request,
                           int timeout_ms) {
  BB_ASSIGN_OR_RETURN(auto hp, fs::ParseHostPort(address));
  if (key_file.empty()) return Status(EINVAL, "needs --key-file: the cluster key the controller was given");
  BB_ASSIGN_OR_RETURN(auto key, auth::LoadKey(key_file));
  return qos::AskController(hp.first, hp.second, key, request, timeout_ms);
}

std::string Human(double v, bool bytes) {
  char out[32];
  if (bytes) {
    std::snprintf(out, sizeof out, "%.1f MiB/s", v / 1048576);
  } else {
    std::snprintf(out, sizeof out, "%.0f op/s", v);
  }
  return out;
}

}  // namespace

Status QosStatus(const std::string& controller, const std::string& key_file, bool as_json) {
  BB_ASSIGN_OR_RETURN(json s, AskController(controller, key_file, {{"type", "status"}}, 5000));
  if (as_json) {
    std::cout << s.dump(2) << "\n";
    return Status::Ok();
  }
  std::printf("controller %s: %s, every %d ms, Max_R %s and %s; %zu node(s) connected; last cycle %.0f us\n",
              controller.c_str(), s.value("algorithm", std::string("?")).c_str(), s.value("interval_ms", 0),
              Human(s["max_rate"].value("metadata", 0.0), false).c_str(),
              Human(s["max_rate"].value("data", 0.0), true).c_str(), s["nodes"].size(), s.value("cycle_us", 0.0));
  std::printf("%-16s %-9s %16s %16s %16s %7s\n", "job", "class", "demand", "rate", "usage", "weight");
  for (const auto& j : s["jobs"]) {
    for (auto [cls, bytes] : {std::pair{"metadata", false}, std::pair{"data", true}}) {
      if (j["demand"].value(cls, 0.0) == 0 && j["usage"].value(cls, 0.0) == 0) continue;
      std::printf("%-16s %-9s %16s %16s %16s %7.1f\n", j.value("job", std::string()).c_str(), cls,
                  Human(j["demand"].value(cls, 0.0), bytes).c_str(), Human(j["rate"].value(cls, 0.0), bytes).c_str(),
                  Human(j["usage"].value(cls, 0.0), bytes).c_str(), j.value("weight", 1.0));
    }
  }
  for (const auto& job : s["unmanaged"])
    std::printf("%-16s not in the policy: not limited\n", job.get<std::string>().c_str());
  return Status::Ok();
}

Status QosSet(const std::string& root, int node, const std::string& job, double metadata, double data) {
  json req = {{"cmd", "qos_set"}, {"job", job}};
  if (metadata >= 0) req["metadata"] = metadata;
  if (data >= 0) req["data"] = data;
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(root));
  for (size_t i = 0; i < sockets.size(); ++i) {
    if (node >= 0 && static_cast<int>(i) != node) continue;
    BB_ASSIGN_OR_RETURN(json reply, fs::ControlCall(sockets[i], req, 10000));
    if (!reply.value("ok", false)) {
      return Status(reply.value("errno", EIO),
                    "node " + std::to_string(i) + ": " + reply.value("error", std::string("failed")));
    }
  }
  std::printf("bbctl: job %s limited%s\n", job.c_str(),
              node >= 0 ? (" on node " + std::to_string(node)).c_str() : " on every node");
  return Status::Ok();
}

}  // namespace bb::ctl
