#include "tools/config/calibration_file.h"

#include <type_traits>

#include "fs/core/placement/layout.h"
#include "tools/config/yaml.h"

namespace bb::config {
namespace {

using modeselect::Calibration;
using modeselect::ConfidenceStep;
using modeselect::SlowdownGroup;

constexpr double kMaxCount = 1e6;

// A mapping of modes 1..4 to numbers in [lo, hi] (whole numbers for an int T).
template <typename T>
Status PerMode(const std::string& src, const std::string& field, const YAML::Node& v, double lo, double hi,
               const char* unit, std::array<T, 4>* out) {
  if (!v.IsMap()) return YamlError(src, v.Mark(), "field '" + field + "' must map modes to numbers");
  for (const auto& kv : v) {
    BB_ASSIGN_OR_RETURN(int64_t m, YamlScalar<int64_t>(src, field, kv.first, "a mode number"));
    if (fs::FindMode(m) == nullptr) {
      return YamlError(src, kv.first.Mark(), "field '" + field + "' must map " + fs::ModeNumbers() + " to numbers");
    }
    BB_ASSIGN_OR_RETURN(double x, YamlNumberIn(src, field, kv.second, lo, hi, unit));
    if (std::is_integral_v<T> && x != static_cast<double>(static_cast<int64_t>(x))) {
      return YamlError(src, kv.second.Mark(), "field '" + field + "' must be a whole number of " + unit);
    }
    (*out)[m - 1] = static_cast<T>(x);
  }
  return Status::Ok();
}

Status ReadGroup(const std::string& src, const YAML::Node& item, double jobs, SlowdownGroup* g) {
  for (const auto& kv : item) {
    const std::string f = kv.first.Scalar(), field = "groups." + f;
    if (f == "rule") {
      BB_ASSIGN_OR_RETURN(g->rule, YamlScalar<std::string>(src, field, kv.second, "a rule id"));
    } else if (f == "jobs") {
      if (!kv.second.IsSequence()) return YamlError(src, kv.second.Mark(), "field '" + field + "' must be a list");
      for (const auto& j : kv.second) {
        BB_ASSIGN_OR_RETURN(std::string name, YamlScalar<std::string>(src, field, j, "a job name"));
        g->jobs.push_back(std::move(name));
      }
    } else if (f == "slowdown") {
      BB_RETURN_IF_ERROR(PerMode(src, field, kv.second, 0, 1e9, "(times the best mode's time)", &g->slowdown));
    } else if (f == "ran" || f == "broke" || f == "right") {
      std::array<int, 4>* into = f == "ran" ? &g->ran : f == "broke" ? &g->broke : &g->right;
      BB_RETURN_IF_ERROR(PerMode(src, field, kv.second, 0, jobs, "jobs", into));
    } else {
      return YamlError(src, kv.first.Mark(),
                       "unknown field '" + field + "' (known: rule, jobs, slowdown, ran, broke, right)");
    }
  }
  return Status::Ok();
}

Status ReadStep(const std::string& src, const YAML::Node& item, double jobs, ConfidenceStep* s) {
  for (const auto& kv : item) {
    const std::string f = kv.first.Scalar(), field = "confidence." + f;
    if (f == "raw" || f == "right") {
      BB_ASSIGN_OR_RETURN(*(f == "raw" ? &s->raw : &s->right), YamlNumberIn(src, field, kv.second, 0, 1, "(a share)"));
    } else if (f == "decisions") {
      BB_ASSIGN_OR_RETURN(int64_t n, YamlIntIn(src, field, kv.second, 0, static_cast<int64_t>(3 * jobs)));
      s->decisions = static_cast<int>(n);
    } else {
      return YamlError(src, kv.first.Mark(), "unknown field '" + field + "' (known: raw, right, decisions)");
    }
  }
  return Status::Ok();
}

// Each mapping of the list `field` of `doc`, read by `read`.
template <typename Read>
Status Each(const std::string& src, const YAML::Node& doc, const char* field, Read read) {
  const YAML::Node list = doc[field];
  if (!list) return Status::Ok();
  if (!list.IsSequence()) return YamlError(src, list.Mark(), std::string("field '") + field + "' must be a list");
  for (const auto& item : list) {
    if (!item.IsMap())
      return YamlError(src, item.Mark(), std::string("each entry of '") + field + "' must be a mapping");
    BB_RETURN_IF_ERROR(read(item));
  }
  return Status::Ok();
}

}  // namespace

Result<Calibration> ParseCalibration(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, source, "a calibration file"));
  Calibration c;
  for (const auto& kv : doc) {
    const std::string f = kv.first.Scalar();
    if (f == "source") {
      BB_ASSIGN_OR_RETURN(c.source, YamlScalar<std::string>(source, f, kv.second, "text"));
    } else if (f == "jobs") {
      BB_ASSIGN_OR_RETURN(int64_t n, YamlIntIn(source, f, kv.second, 0, static_cast<int64_t>(kMaxCount)));
      c.jobs = static_cast<int>(n);
    } else if (f != "groups" && f != "confidence") {
      return YamlError(source, kv.first.Mark(), "unknown field '" + f + "' (known: source, jobs, groups, confidence)");
    }
  }
  const double jobs = c.jobs;
  BB_RETURN_IF_ERROR(Each(source, doc, "groups", [&](const YAML::Node& item) {
    c.groups.emplace_back();
    return ReadGroup(source, item, jobs, &c.groups.back());
  }));
  BB_RETURN_IF_ERROR(Each(source, doc, "confidence", [&](const YAML::Node& item) -> Status {
    ConfidenceStep s;
    BB_RETURN_IF_ERROR(ReadStep(source, item, jobs, &s));
    if (!c.confidence.empty() && s.raw <= c.confidence.back().raw) {
      return YamlError(source, item.Mark(), "field 'confidence.raw' must ascend from step to step");
    }
    c.confidence.push_back(s);
    return Status::Ok();
  }));
  return c;
}

std::string FormatCalibration(const Calibration& c, const std::string& header) {
  YAML::Emitter e;
  e.SetDoublePrecision(4);
  auto per_mode = [&e](const char* key, const auto& values) {
    e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (int m = 0; m < 4; ++m) e << YAML::Key << m + 1 << YAML::Value << values[m];
    e << YAML::EndMap;
  };
  e << YAML::BeginMap;
  e << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << c.source;
  e << YAML::Key << "jobs" << YAML::Value << c.jobs;
  e << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
  for (const SlowdownGroup& g : c.groups) {
    e << YAML::BeginMap << YAML::Key << "rule" << YAML::Value << YAML::DoubleQuoted << g.rule;
    e << YAML::Key << "jobs" << YAML::Value << YAML::Flow << g.jobs;
    per_mode("slowdown", g.slowdown);
    per_mode("ran", g.ran);
    per_mode("broke", g.broke);
    per_mode("right", g.right);
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::Key << "confidence" << YAML::Value << YAML::BeginSeq;
  for (const ConfidenceStep& s : c.confidence) {
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "raw" << YAML::Value << s.raw << YAML::Key << "right"
      << YAML::Value << s.right << YAML::Key << "decisions" << YAML::Value << s.decisions << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  return header + std::string(e.c_str()) + "\n";
}

}  // namespace bb::config
