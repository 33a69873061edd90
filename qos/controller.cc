#include "qos/controller.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "fs/base/units.h"
#include "qos/policy.h"

namespace bb::qos {
namespace {

Status Error(const std::string& source, const YAML::Mark& m, const std::string& what) {
  return Status(EINVAL, source + ":" + std::to_string(m.line + 1) + ": " + what);
}

// A number, or a byte size such as "200MiB" (ParseByteSize, as in bbd.yaml) when `bytes`.
Result<double> Number(const std::string& source, const std::string& field, const YAML::Node& v, bool bytes) {
  if (!v.IsScalar()) return Error(source, v.Mark(), "field '" + field + "' must be a number");
  const std::string& s = v.Scalar();
  double x;
  if (bytes) {
    auto n = ParseByteSize(s);
    if (!n) return Error(source, v.Mark(), "field '" + field + "': " + n.error().message());
    x = static_cast<double>(*n);
  } else {
    char* end = nullptr;
    x = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0') {
      return Error(source, v.Mark(), "field '" + field + "' must be a number, got '" + s + "'");
    }
  }
  if (!(x >= 0) || x > 1e15) return Error(source, v.Mark(), "field '" + field + "' must be 0..1e15");
  return x;
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
  // use[node][job] = (metadata, data) usage there.
  std::vector<std::array<double, 2>> use(nodes * jobs, {0, 0});
  size_t n = 0;
  for (const auto& [node, u] : usage) {
    size_t j = 0;
    for (const auto& [job, jp] : policy.jobs) {
      auto it = u.find(job);
      if (it != u.end()) use[n * jobs + j] = {it->second.first, it->second.second};
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
      state[j]->usage[0] += use[node * jobs + j][0];
      state[j]->usage[1] += use[node * jobs + j][1];
    }
  }
  out.node_rates.assign(nodes * jobs, {0, 0});
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
    std::vector<double> rates;
    if (policy.algorithm == "static") rates = StaticRates(loads, max_rate);
    else if (policy.algorithm == "priority") rates = PriorityRates(loads, max_rate);
    else if (policy.algorithm == "proportional") rates = ProportionalRates(loads, max_rate);
    else rates = PsfaRates(loads, max_rate, prev);
    // Each job's rate over the nodes: 5 % evenly, so a node where the job is just starting is
    // never stuck at zero, 95 % by where its usage is.
    std::vector<double> node_usage(nodes);
    for (size_t j = 0; j < jobs; ++j) {
      state[j]->rate[cls] = rates[j];
      for (size_t node = 0; node < nodes; ++node) node_usage[node] = use[node * jobs + j][cls];
      std::vector<double> split = SplitByUsage(rates[j], node_usage, 0.05);
      for (size_t node = 0; node < nodes; ++node) {
        auto& slot = out.node_rates[node * jobs + j];
        (cls == 0 ? slot.first : slot.second) = split[node];
      }
    }
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

}  // namespace bb::qos
