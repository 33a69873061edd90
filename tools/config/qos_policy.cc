#include "tools/config/qos_policy.h"

#include "fs/base/units.h"
#include "tools/config/yaml.h"

namespace bb::config {
namespace {

using qos::JobPolicy;
using qos::Policy;

// A rate: a number, or a byte size such as "200MiB" (as in bbd.yaml) when `bytes`.
Result<double> Rate(const std::string& source, const std::string& field, const YAML::Node& v, bool bytes) {
  double x;
  if (bytes) {
    BB_ASSIGN_OR_RETURN(uint64_t n, YamlSize(source, field, v));
    x = static_cast<double>(n);
  } else {
    BB_ASSIGN_OR_RETURN(x, YamlScalar<double>(source, field, v, "a number"));
  }
  if (!(x >= 0) || x > 1e15) return YamlError(source, v.Mark(), "field '" + field + "' must be 0..1e15");
  return x;
}

Status ReadMaxRate(const std::string& source, const YAML::Node& v, Policy* p) {
  if (!v.IsMap()) return YamlError(source, v.Mark(), "field 'max_rate' must map metadata/data to rates");
  for (const auto& c : v) {
    std::string cls = c.first.Scalar();
    if (cls == "metadata") {
      BB_ASSIGN_OR_RETURN(p->max_metadata, Rate(source, "max_rate.metadata", c.second, false));
    } else if (cls == "data") {
      BB_ASSIGN_OR_RETURN(p->max_data, Rate(source, "max_rate.data", c.second, true));
    } else {
      return YamlError(source, c.first.Mark(), "unknown field 'max_rate." + cls + "' (known: metadata, data)");
    }
  }
  return Status::Ok();
}

Status ReadJobs(const std::string& source, const YAML::Node& v, Policy* p) {
  if (!v.IsMap()) return YamlError(source, v.Mark(), "field 'jobs' must map job ids to their demands");
  for (const auto& j : v) {
    std::string job = j.first.Scalar();
    if (!j.second.IsMap()) return YamlError(source, j.second.Mark(), "job '" + job + "' must be a mapping");
    JobPolicy jp;
    for (const auto& f : j.second) {
      std::string name = f.first.Scalar();
      std::string full = "jobs." + job + "." + name;
      if (name == "metadata") {
        BB_ASSIGN_OR_RETURN(jp.metadata, Rate(source, full, f.second, false));
      } else if (name == "data") {
        BB_ASSIGN_OR_RETURN(jp.data, Rate(source, full, f.second, true));
      } else if (name == "weight") {
        BB_ASSIGN_OR_RETURN(jp.weight, Rate(source, full, f.second, false));
        if (jp.weight <= 0) return YamlError(source, f.second.Mark(), "field '" + full + "' must be above 0");
      } else {
        return YamlError(source, f.first.Mark(), "unknown field '" + full + "' (known: metadata, data, weight)");
      }
    }
    p->jobs[job] = jp;
  }
  return Status::Ok();
}

}  // namespace

Result<Policy> ParsePolicy(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, source, "a policy"));
  Policy p;
  bool have_max = false;
  for (const auto& kv : doc) {
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "algorithm") {
      const qos::AlgorithmInfo* a = v.IsScalar() ? qos::FindAlgorithm(v.Scalar()) : nullptr;
      if (a == nullptr) return YamlError(source, v.Mark(), "field 'algorithm' must be " + qos::AlgorithmNames());
      p.algorithm = a->id;
    } else if (field == "interval_ms") {
      BB_ASSIGN_OR_RETURN(p.interval_ms, YamlIntIn(source, field, v, 10, 60000, "a number of milliseconds"));
    } else if (field == "max_rate") {
      BB_RETURN_IF_ERROR(ReadMaxRate(source, v, &p));
      have_max = true;
    } else if (field == "jobs") {
      BB_RETURN_IF_ERROR(ReadJobs(source, v, &p));
    } else {
      return YamlError(source, kv.first.Mark(),
                       "unknown field '" + field + "' (known: algorithm, interval_ms, max_rate, jobs)");
    }
  }
  if (!have_max) return Status(EINVAL, source + ": field 'max_rate' is required");
  return p;
}

Result<Policy> LoadPolicy(const std::string& path) {
  auto text = ReadTextFile(path, "policy file");
  if (!text) return Status(ENOENT, text.error().message());
  return ParsePolicy(*text, path);
}

}  // namespace bb::config
