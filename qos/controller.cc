#include "qos/controller.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "qos/policy.h"

namespace bb::qos {
namespace {

Status Error(const std::string& source, const YAML::Mark& m, const std::string& what) {
  return Status(EINVAL, source + ":" + std::to_string(m.line + 1) + ": " + what);
}

// A number, or a byte size such as "200MiB" when `bytes`.
Result<double> Number(const std::string& source, const std::string& field, const YAML::Node& v, bool bytes) {
  if (!v.IsScalar()) return Error(source, v.Mark(), "field '" + field + "' must be a number");
  const std::string& s = v.Scalar();
  char* end = nullptr;
  double x = std::strtod(s.c_str(), &end);
  std::string unit = end ? std::string(end) : "";
  double mult = 1;
  if (bytes && !unit.empty()) {
    static const std::map<std::string, double> kUnits = {{"K", 1e3}, {"KiB", 1024.0}, {"M", 1e6}, {"MiB", 1048576.0},
                                                         {"G", 1e9}, {"GiB", 1073741824.0}};
    auto it = kUnits.find(unit);
    if (it == kUnits.end()) return Error(source, v.Mark(), "field '" + field + "': unknown unit '" + unit + "'");
    mult = it->second;
  } else if (!unit.empty() || end == s.c_str()) {
    return Error(source, v.Mark(), "field '" + field + "' must be a number, got '" + s + "'");
  }
  x *= mult;
  if (!(x >= 0) || x > 1e15) return Error(source, v.Mark(), "field '" + field + "' must be 0..1e15");
  return x;
}

void Split(double rate, const std::map<std::string, double>& node_usage, double total_usage,
           const std::vector<std::string>& nodes, bool data, const std::string& job, CycleResult* out) {
  double n = static_cast<double>(nodes.size());
  for (const auto& node : nodes) {
    auto it = node_usage.find(node);
    double u = it == node_usage.end() ? 0 : it->second;
    double share = total_usage > 0 ? 0.05 / n + 0.95 * u / total_usage : 1.0 / n;
    auto& slot = out->node_rates[node][job];
    (data ? slot.second : slot.first) = rate * share;
  }
}

}  // namespace

Result<Policy> ParsePolicy(const std::string& text, const std::string& source) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status(EINVAL, source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!doc.IsMap()) return Status(EINVAL, source + ": a policy must be a mapping of fields");
  Policy p;
  bool have_max = false;
  for (const auto& kv : doc) {
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "algorithm") {
      p.algorithm = v.IsScalar() ? v.Scalar() : "";
      if (p.algorithm != "static" && p.algorithm != "priority" && p.algorithm != "proportional" && p.algorithm != "psfa") {
        return Error(source, v.Mark(), "field 'algorithm' must be static, priority, proportional or psfa");
      }
    } else if (field == "interval_ms") {
      BB_ASSIGN_OR_RETURN(double ms, Number(source, field, v, false));
      if (ms < 10 || ms > 60000) return Error(source, v.Mark(), "field 'interval_ms' must be 10..60000");
      p.interval_ms = static_cast<int>(ms);
    } else if (field == "max_rate") {
      if (!v.IsMap()) return Error(source, v.Mark(), "field 'max_rate' must map metadata/data to rates");
      for (const auto& c : v) {
        std::string cls = c.first.Scalar();
        if (cls == "metadata") {
          BB_ASSIGN_OR_RETURN(p.max_metadata, Number(source, "max_rate.metadata", c.second, false));
        } else if (cls == "data") {
          BB_ASSIGN_OR_RETURN(p.max_data, Number(source, "max_rate.data", c.second, true));
        } else {
          return Error(source, c.first.Mark(), "unknown field 'max_rate." + cls + "' (known: metadata, data)");
        }
      }
      have_max = true;
    } else if (field == "jobs") {
      if (!v.IsMap()) return Error(source, v.Mark(), "field 'jobs' must map job ids to their demands");
      for (const auto& j : v) {
        std::string job = j.first.Scalar();
        if (!j.second.IsMap()) return Error(source, j.second.Mark(), "job '" + job + "' must be a mapping");
        JobPolicy jp;
        for (const auto& f : j.second) {
          std::string name = f.first.Scalar();
          std::string full = "jobs." + job + "." + name;
          if (name == "metadata") {
            BB_ASSIGN_OR_RETURN(jp.metadata, Number(source, full, f.second, false));
          } else if (name == "data") {
            BB_ASSIGN_OR_RETURN(jp.data, Number(source, full, f.second, true));
          } else if (name == "weight") {
            BB_ASSIGN_OR_RETURN(jp.weight, Number(source, full, f.second, false));
            if (jp.weight <= 0) return Error(source, f.second.Mark(), "field '" + full + "' must be above 0");
          } else {
            return Error(source, f.first.Mark(), "unknown field '" + full + "' (known: metadata, data, weight)");
          }
        }
        p.jobs[job] = jp;
      }
    } else {
      return Error(source, kv.first.Mark(), "unknown field '" + field + "' (known: algorithm, interval_ms, max_rate, jobs)");
    }
  }
  if (!have_max) return Status(EINVAL, source + ": field 'max_rate' is required");
  return p;
}

Result<Policy> LoadPolicy(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(ENOENT, "cannot read policy file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParsePolicy(ss.str(), path);
}

CycleResult ComputeCycle(const Policy& policy, const std::map<std::string, NodeUsage>& usage,
                         const CycleResult* previous) {
  CycleResult out;
  std::vector<std::string> nodes;
  for (const auto& [node, u] : usage) nodes.push_back(node);
  std::vector<std::string> jobs;
  for (const auto& [job, jp] : policy.jobs) {
    jobs.push_back(job);
    JobState& s = out.jobs[job];
    s.demand[0] = jp.metadata;
    s.demand[1] = jp.data;
    s.weight = jp.weight;
    for (const auto& [node, u] : usage) {
      auto it = u.find(job);
      if (it == u.end()) continue;
      s.usage[0] += it->second.first;
      s.usage[1] += it->second.second;
    }
  }
  for (int cls = 0; cls < 2; ++cls) {
    std::vector<JobLoad> loads;
    std::vector<double> prev;
    for (const auto& job : jobs) {
      const JobState& s = out.jobs[job];
      loads.push_back({s.demand[cls], s.weight, s.usage[cls]});
      if (previous) {
        auto it = previous->jobs.find(job);
        prev.push_back(it == previous->jobs.end() ? 0 : it->second.rate[cls]);
      }
    }
    double max_rate = cls == 0 ? policy.max_metadata : policy.max_data;
    std::vector<double> rates;
    if (policy.algorithm == "static") rates = StaticRates(loads, max_rate);
    else if (policy.algorithm == "priority") rates = PriorityRates(loads, max_rate);
    else if (policy.algorithm == "proportional") rates = ProportionalRates(loads, max_rate);
    else rates = PsfaRates(loads, max_rate, prev);
    for (size_t i = 0; i < jobs.size(); ++i) {
      out.jobs[jobs[i]].rate[cls] = rates[i];
      std::map<std::string, double> per_node;
      double total = 0;
      for (const auto& [node, u] : usage) {
        auto it = u.find(jobs[i]);
        double v = it == u.end() ? 0 : (cls == 0 ? it->second.first : it->second.second);
        per_node[node] = v;
        total += v;
      }
      Split(rates[i], per_node, total, nodes, cls == 1, jobs[i], &out);
    }
  }
  return out;
}

std::string Frame(const nlohmann::json& message) {
  std::string body = message.dump();
  uint32_t n = static_cast<uint32_t>(body.size());
  std::string out = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                     static_cast<char>(n)};
  return out + body;
}

Result<nlohmann::json> ParseMessage(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status(EPROTO, "message is not a JSON object");
  if (!j.contains("type") || !j["type"].is_string()) return Status(EPROTO, "message has no 'type'");
  return j;
}

}  // namespace bb::qos
