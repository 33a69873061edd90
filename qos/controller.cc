#include "qos/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "qos/policy.h"

namespace bb::qos {

std::pair<double, double> CycleResult::Rate(size_t node, size_t job) const {
  const JobState& s = jobs.at(job_names[job]);
  const auto& u = node_usage[node * job_names.size() + job];
  double n = static_cast<double>(nodes.size());
  return {ShareOf(s.rate[0], u.first, s.usage[0], n, kEvenShare),
          ShareOf(s.rate[1], u.second, s.usage[1], n, kEvenShare)};
}

std::pair<double, double> CycleResult::Rate(const std::string& node, const std::string& job) const {
  auto n = std::find(nodes.begin(), nodes.end(), node);
  auto j = std::find(job_names.begin(), job_names.end(), job);
  if (n == nodes.end() || j == job_names.end()) return {0, 0};
  return Rate(static_cast<size_t>(n - nodes.begin()), static_cast<size_t>(j - job_names.begin()));
}

CycleResult ComputeCycle(const Policy& policy, const std::map<std::string, NodeUsage>& usage,
                         const CycleResult* previous) {
  CycleResult out;
  const size_t jobs = policy.jobs.size();
  for (const auto& [node, u] : usage) out.nodes.push_back(node);
  for (const auto& [job, jp] : policy.jobs) out.job_names.push_back(job);
  const size_t nodes = out.nodes.size();
  std::vector<std::pair<double, double>>& use = out.node_usage;
  use.assign(nodes * jobs, {0, 0});
  size_t n = 0;
  for (const auto& [node, u] : usage) {
    size_t j = 0;
    for (const auto& [job, jp] : policy.jobs) {
      auto it = u.find(job);
      if (it != u.end()) use[n * jobs + j] = it->second;
      ++j;
    }
    ++n;
  }
  std::vector<JobState*> state;
  for (const auto& [job, jp] : policy.jobs) {
    JobState& s = out.jobs[job];
    s.demand[0] = jp.metadata;
    s.demand[1] = jp.data;
    s.weight = jp.weight;
    state.push_back(&s);
  }
  for (size_t node = 0; node < nodes; ++node) {
    for (size_t j = 0; j < jobs; ++j) {
      state[j]->usage[0] += use[node * jobs + j].first;
      state[j]->usage[1] += use[node * jobs + j].second;
    }
  }
  for (int cls = 0; cls < 2; ++cls) {
    std::vector<JobLoad> loads;
    std::vector<double> prev;
    for (size_t j = 0; j < jobs; ++j) {
      loads.push_back({state[j]->demand[cls], state[j]->weight, state[j]->usage[cls]});
      if (previous) {
        auto it = previous->jobs.find(out.job_names[j]);
        prev.push_back(it == previous->jobs.end() ? 0 : it->second.rate[cls]);
      }
    }
    double max_rate = cls == 0 ? policy.max_metadata : policy.max_data;
    std::vector<double> rates = AlgorithmOf(policy.algorithm).rates(loads, max_rate, prev);
    for (size_t j = 0; j < jobs; ++j) state[j]->rate[cls] = rates[j];
  }
  return out;
}

std::string Frame(const nlohmann::json& message) { return FrameBody(message.dump()); }

std::string FrameBody(std::string_view body) {
  uint32_t n = static_cast<uint32_t>(body.size());
  std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                     static_cast<char>(n)};
  out.append(body);
  return out;
}

uint32_t FrameLength(const char header[4]) {
  auto b = [&](int i) { return static_cast<uint32_t>(static_cast<uint8_t>(header[i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

Result<std::optional<std::string>> PopMessage(std::string* in) {
  if (in->size() < 4) return std::optional<std::string>();
  uint32_t len = FrameLength(in->data());
  if (len > kMaxMessage) return Status(EPROTO, "message of " + std::to_string(len) + " bytes is too long");
  if (in->size() < 4 + static_cast<size_t>(len)) return std::optional<std::string>();
  std::string body = in->substr(4, len);
  in->erase(0, 4 + static_cast<size_t>(len));
  return std::optional<std::string>(std::move(body));
}

Result<NodeUsage> ParseUsage(const nlohmann::json& usage) {
  if (!usage.is_object()) return Status(EPROTO, "report without a usage object");
  NodeUsage out;
  for (const auto& [job, v] : usage.items()) {
    if (!v.is_object()) return Status(EPROTO, "usage of job " + job + " is not an object");
    double rate[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
      const char* cls = c == 0 ? "metadata" : "data";
      auto it = v.find(cls);
      if (it == v.end()) continue;
      if (!it->is_number() || !(it->get<double>() >= 0)) {
        return Status(EPROTO, "usage of job " + job + ": '" + cls + "' must be a number >= 0");
      }
      rate[c] = it->get<double>();
    }
    out[job] = {rate[0], rate[1]};
  }
  return out;
}

Result<nlohmann::json> ParseMessage(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status(EPROTO, "message is not a JSON object");
  if (!j.contains("type") || !j["type"].is_string()) return Status(EPROTO, "message has no 'type'");
  return j;
}

std::string SharesBody(const CycleResult& r, int interval_ms) {
  std::string body;
  fmt::format_to(std::back_inserter(body), R"({{"type":"shares","interval_ms":{},"nodes":{},"even_share":{},"jobs":{{)",
                 interval_ms, r.nodes.size(), kEvenShare);
  bool first = true;
  for (const auto& [job, s] : r.jobs) {
    if (s.demand[0] <= 0 && s.demand[1] <= 0) continue;  // not limited in either class
    body += first ? "" : ",";
    first = false;
    body += nlohmann::json(job).dump();
    body += ":{";
    for (int c = 0; c < 2; ++c) {
      if (s.demand[c] <= 0) continue;
      bool second = c == 1 && s.demand[0] > 0;
      fmt::format_to(std::back_inserter(body), R"({}"{}":{{"rate":{},"usage":{}}})", second ? "," : "",
                     c == 0 ? "metadata" : "data", s.rate[c], s.usage[c]);
    }
    body += '}';
  }
  body += "}}";
  return body;
}

Result<NodeLimits> LimitsFromShares(const nlohmann::json& msg, const NodeUsage* reported) {
  auto number = [&](const nlohmann::json& o, const char* key) -> Result<double> {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      return Status(EPROTO, std::string("shares message: field '") + key + "' is not a number >= 0");
    }
    return it->get<double>();
  };
  if (!msg.is_object() || !msg.contains("jobs") || !msg["jobs"].is_object()) {
    return Status(EPROTO, "shares message without a jobs object");
  }
  BB_ASSIGN_OR_RETURN(double nodes, number(msg, "nodes"));
  BB_ASSIGN_OR_RETURN(double even, number(msg, "even_share"));
  NodeLimits out;
  for (const auto& [job, classes] : msg["jobs"].items()) {
    if (!classes.is_object()) return Status(EPROTO, "shares message: job " + job + " is not an object");
    auto mine = reported ? reported->find(job) : NodeUsage::const_iterator();
    for (int c = 0; c < 2; ++c) {
      auto it = classes.find(c == 0 ? "metadata" : "data");
      if (it == classes.end()) continue;
      if (!it->is_object()) return Status(EPROTO, "shares message: a class of job " + job + " is not an object");
      BB_ASSIGN_OR_RETURN(double rate, number(*it, "rate"));
      BB_ASSIGN_OR_RETURN(double total, number(*it, "usage"));
      double own = 0;
      if (reported && mine != reported->end()) own = c == 0 ? mine->second.first : mine->second.second;
      double share = reported ? ShareOf(rate, own, total, nodes, even) : rate / std::max(nodes, 1.0);
      (c == 0 ? out[job].first : out[job].second) = share;
    }
  }
  return out;
}

}  // namespace bb::qos
