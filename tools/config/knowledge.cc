#include "tools/config/knowledge.h"

#include <filesystem>
#include <set>

#include "fs/core/placement/layout.h"
#include "modeselect/reason/rules.h"
#include "tools/config/calibration_file.h"
#include "tools/config/yaml.h"

namespace bb::config {
namespace {

using modeselect::KnowledgeBase;

Result<std::string> Text(const std::string& src, const std::string& field, const YAML::Node& v) {
  return YamlScalar<std::string>(src, field, v, "text");
}

Result<std::vector<std::string>> TextList(const std::string& src, const std::string& field, const YAML::Node& v) {
  if (!v.IsSequence()) return YamlError(src, v.Mark(), "field '" + field + "' must be a list");
  std::vector<std::string> out;
  for (const auto& item : v) {
    BB_ASSIGN_OR_RETURN(std::string s, Text(src, field, item));
    out.push_back(std::move(s));
  }
  return out;
}

// A mode number of the mode table (fs/core/placement/layout.h), as a 0-based index.
Result<int> ModeIndex(const std::string& src, const std::string& field, const YAML::Node& v) {
  BB_ASSIGN_OR_RETURN(int64_t n, YamlScalar<int64_t>(src, field, v, "a mode number"));
  if (fs::FindMode(n) == nullptr) return YamlError(src, v.Mark(), "field '" + field + "' must be " + fs::ModeNumbers());
  return static_cast<int>(n - 1);
}

// Reads each entry of the list `field` of `doc` with `read`.
template <typename Read>
Status EachOf(const std::string& src, const YAML::Node& doc, const std::string& field, Read read) {
  const YAML::Node list = doc[field];
  if (!list) return Status::Ok();
  if (!list.IsSequence()) return YamlError(src, list.Mark(), "field '" + field + "' must be a list");
  for (const auto& item : list) {
    if (!item.IsMap()) return YamlError(src, item.Mark(), "each entry of '" + field + "' must be a mapping");
    BB_RETURN_IF_ERROR(read(item));
  }
  return Status::Ok();
}

Status ReadMode(const std::string& src, const YAML::Node& m, KnowledgeBase* kb) {
  modeselect::ModeKnowledge k;
  for (const auto& kv : m) {
    std::string f = kv.first.Scalar();
    if (f == "mode") {
      BB_ASSIGN_OR_RETURN(int i, ModeIndex(src, "modes.mode", kv.second));
      k.mode = i + 1;
    } else if (f == "name" || f == "summary") {
      BB_ASSIGN_OR_RETURN(*(f == "name" ? &k.name : &k.summary), Text(src, "modes." + f, kv.second));
    } else if (f == "strengths" || f == "weaknesses") {
      BB_ASSIGN_OR_RETURN(*(f == "strengths" ? &k.strengths : &k.weaknesses), TextList(src, "modes." + f, kv.second));
    } else {
      return YamlError(src, kv.first.Mark(),
                       "unknown field 'modes." + f + "' (known: mode, name, summary, strengths, weaknesses)");
    }
  }
  if (k.mode == 0) return YamlError(src, m.Mark(), "a mode needs its 'mode' number");
  kb->modes.push_back(std::move(k));
  return Status::Ok();
}

// The `decision` mapping of modes.yaml (the decision rule's settings, modeselect/knowledge.h).
Status ReadDecision(const std::string& src, const YAML::Node& v, modeselect::DecisionSettings* d) {
  if (!v.IsMap()) return YamlError(src, v.Mark(), "field 'decision' must be a mapping");
  for (const auto& kv : v) {
    const std::string f = kv.first.Scalar(), field = "decision." + f;
    if (f == "conflict_margin") {
      BB_ASSIGN_OR_RETURN(d->conflict_margin, YamlNumberIn(src, field, kv.second, 0, 100, "(score units)"));
    } else if (f == "prior_jobs") {
      BB_ASSIGN_OR_RETURN(d->prior_jobs, YamlNumberIn(src, field, kv.second, 0, 1000, "(jobs)"));
    } else if (f == "prior_slowdown") {
      BB_ASSIGN_OR_RETURN(d->prior_slowdown, YamlNumberIn(src, field, kv.second, 1, 100, "(times the best time)"));
    } else if (f == "break_slowdown") {
      BB_ASSIGN_OR_RETURN(d->break_slowdown, YamlNumberIn(src, field, kv.second, 1, 1e6, "(times the best time)"));
    } else if (f == "even_within") {
      BB_ASSIGN_OR_RETURN(d->even_within, YamlNumberIn(src, field, kv.second, 0, 1, "(a fraction)"));
    } else {
      return YamlError(src, kv.first.Mark(),
                       "unknown field '" + field +
                           "' (known: conflict_margin, prior_jobs, prior_slowdown, break_slowdown, "
                           "even_within)");
    }
  }
  return Status::Ok();
}

Status ReadModes(const std::string& text, const std::string& src, KnowledgeBase* kb) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, src, "modes.yaml"));
  for (const auto& kv : doc) {
    std::string f = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (f == "min_confidence") {
      BB_ASSIGN_OR_RETURN(kb->min_confidence, YamlNumberIn(src, f, v, 0, 1, "(a confidence)"));
    } else if (f == "confidence_scale") {
      BB_ASSIGN_OR_RETURN(kb->confidence_scale, YamlNumberIn(src, f, v, 0.01, 100, "(score units)"));
    } else if (f == "prior_mode3") {
      BB_ASSIGN_OR_RETURN(kb->prior_mode3, YamlNumberIn(src, f, v, 0, 100, "(score units)"));
    } else if (f == "decision") {
      BB_RETURN_IF_ERROR(ReadDecision(src, v, &kb->decision));
    } else if (f != "modes") {
      return YamlError(
          src, kv.first.Mark(),
          "unknown field '" + f + "' (known: min_confidence, confidence_scale, prior_mode3, decision, modes)");
    }
  }
  return EachOf(src, doc, "modes", [&](const YAML::Node& m) { return ReadMode(src, m, kb); });
}

Status ReadPattern(const std::string& src, const YAML::Node& p, KnowledgeBase* kb) {
  modeselect::PatternKnowledge k;
  for (const auto& kv : p) {
    std::string f = kv.first.Scalar();
    if (f == "id" || f == "description" || f == "why") {
      BB_ASSIGN_OR_RETURN(*(f == "id"    ? &k.id
                            : f == "why" ? &k.why
                                         : &k.description),
                          Text(src, "patterns." + f, kv.second));
    } else if (f == "modes") {
      if (!kv.second.IsSequence()) return YamlError(src, kv.second.Mark(), "field 'patterns.modes' must be a list");
      for (const auto& m : kv.second) {
        BB_ASSIGN_OR_RETURN(int i, ModeIndex(src, "patterns.modes", m));
        k.modes.push_back(i + 1);
      }
    } else {
      return YamlError(src, kv.first.Mark(), "unknown field 'patterns." + f + "' (known: id, description, modes, why)");
    }
  }
  if (k.id.empty()) return YamlError(src, p.Mark(), "a pattern needs an 'id'");
  kb->patterns.push_back(std::move(k));
  return Status::Ok();
}

Status ReadConditions(const std::string& src, const std::string& field, const YAML::Node& v,
                      std::vector<modeselect::Condition>* out) {
  if (!v.IsSequence()) return YamlError(src, v.Mark(), "field '" + field + "' must be a list of conditions");
  for (const auto& item : v) {
    BB_ASSIGN_OR_RETURN(std::string text, Text(src, field, item));
    auto c = modeselect::ParseCondition(text);
    if (!c) return YamlError(src, item.Mark(), "field '" + field + "': " + c.error().message());
    out->push_back(std::move(*c));
  }
  return Status::Ok();
}

Status ReadVotes(const std::string& src, const YAML::Node& v, modeselect::Rule* r) {
  if (!v.IsMap()) return YamlError(src, v.Mark(), "field 'rules.votes' must map modes to scores");
  for (const auto& kv : v) {
    BB_ASSIGN_OR_RETURN(int i, ModeIndex(src, "rules.votes", kv.first));
    BB_ASSIGN_OR_RETURN(r->votes[i], YamlNumberIn(src, "rules.votes", kv.second, -100, 100, "(score units)"));
  }
  return Status::Ok();
}

Status ReadRuleField(const std::string& src, const YAML::Node& key, const YAML::Node& v, modeselect::Rule* r) {
  const std::string f = key.Scalar();
  if (f == "id" || f == "description" || f == "reason" || f == "topology" || f == "pattern" || f == "risk") {
    std::string* into = f == "id"            ? &r->id
                        : f == "description" ? &r->description
                        : f == "reason"      ? &r->reason
                        : f == "topology"    ? &r->topology
                        : f == "pattern"     ? &r->pattern
                                             : &r->risk;
    BB_ASSIGN_OR_RETURN(*into, Text(src, "rules." + f, v));
  } else if (f == "all" || f == "any") {
    BB_RETURN_IF_ERROR(ReadConditions(src, "rules." + f, v, f == "all" ? &r->all : &r->any));
  } else if (f == "votes") {
    BB_RETURN_IF_ERROR(ReadVotes(src, v, r));
  } else if (f == "rules_out_cross_node") {
    BB_ASSIGN_OR_RETURN(r->rules_out_cross_node, YamlScalar<bool>(src, "rules." + f, v, "true or false"));
  } else if (f == "excludes") {
    if (!v.IsSequence()) return YamlError(src, v.Mark(), "field 'rules.excludes' must be a list of modes");
    for (const auto& m : v) {
      BB_ASSIGN_OR_RETURN(int i, ModeIndex(src, "rules.excludes", m));
      r->excludes[i] = true;
    }
  } else {
    return YamlError(src, key.Mark(),
                     "unknown field 'rules." + f +
                         "' (known: id, description, all, any, votes, excludes, rules_out_cross_node, "
                         "reason, topology, pattern, risk)");
  }
  return Status::Ok();
}

Status ReadRules(const std::string& text, const std::string& src, KnowledgeBase* kb) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, src, "rules.yaml"));
  for (const auto& kv : doc) {
    if (kv.first.Scalar() != "rules")
      return YamlError(src, kv.first.Mark(), "unknown field '" + kv.first.Scalar() + "' (known: rules)");
  }
  std::set<std::string> ids, patterns;
  for (const auto& p : kb->patterns) patterns.insert(p.id);
  return EachOf(src, doc, "rules", [&](const YAML::Node& item) -> Status {
    modeselect::Rule r;
    for (const auto& kv : item) BB_RETURN_IF_ERROR(ReadRuleField(src, kv.first, kv.second, &r));
    if (r.id.empty()) return YamlError(src, item.Mark(), "a rule needs an 'id'");
    if (!ids.insert(r.id).second) return YamlError(src, item.Mark(), "rule id '" + r.id + "' is used twice");
    if (!r.pattern.empty() && !patterns.count(r.pattern)) {
      return YamlError(src, item.Mark(), "rule '" + r.id + "' cites the unknown pattern '" + r.pattern + "'");
    }
    if (r.all.empty() && r.any.empty()) return YamlError(src, item.Mark(), "rule '" + r.id + "' has no condition");
    if (r.rules_out_cross_node && r.excludes[0]) {
      return YamlError(src, item.Mark(), "rule '" + r.id + "' both rules out cross-node use and excludes mode 1");
    }
    kb->rules.push_back(std::move(r));
    return Status::Ok();
  });
}

}  // namespace

Result<KnowledgeBase> ParseKnowledgeBase(const std::string& modes, const std::string& patterns,
                                         const std::string& rules, const std::string& source) {
  KnowledgeBase kb;
  BB_RETURN_IF_ERROR(ReadModes(modes, source + "modes.yaml", &kb));
  BB_ASSIGN_OR_RETURN(YAML::Node pdoc, ParseYamlMap(patterns, source + "patterns.yaml", "patterns.yaml"));
  for (const auto& kv : pdoc) {
    if (kv.first.Scalar() != "patterns") {
      return YamlError(source + "patterns.yaml", kv.first.Mark(),
                       "unknown field '" + kv.first.Scalar() + "' (known: patterns)");
    }
  }
  BB_RETURN_IF_ERROR(EachOf(source + "patterns.yaml", pdoc, "patterns",
                            [&](const YAML::Node& p) { return ReadPattern(source + "patterns.yaml", p, &kb); }));
  BB_RETURN_IF_ERROR(ReadRules(rules, source + "rules.yaml", &kb));
  return kb;
}

Result<KnowledgeBase> LoadKnowledgeBase(const std::string& dir) {
  std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  BB_ASSIGN_OR_RETURN(std::string modes, ReadTextFile(prefix + "modes.yaml", "knowledge base file"));
  BB_ASSIGN_OR_RETURN(std::string patterns, ReadTextFile(prefix + "patterns.yaml", "knowledge base file"));
  BB_ASSIGN_OR_RETURN(std::string rules, ReadTextFile(prefix + "rules.yaml", "knowledge base file"));
  BB_ASSIGN_OR_RETURN(KnowledgeBase kb, ParseKnowledgeBase(modes, patterns, rules, prefix));
  // The calibration is optional: without it the decision rule has the rules' ranking alone.
  if (std::filesystem::exists(prefix + "calibration.yaml")) {
    BB_ASSIGN_OR_RETURN(std::string text, ReadTextFile(prefix + "calibration.yaml", "knowledge base file"));
    BB_ASSIGN_OR_RETURN(kb.calibration, ParseCalibration(text, prefix + "calibration.yaml"));
  }
  return kb;
}

}  // namespace bb::config
