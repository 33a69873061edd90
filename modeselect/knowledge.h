// KnowledgeBase: what the reasoners know about the layout modes and about application I/O
// patterns, as plain data. The files are configs/modeselect/*.yaml, read by the YAML library in
// tools/config (a site tunes them without recompiling); this library never reads YAML.
//
//   modes:     per mode, its name, what it is good at and what it costs
//   patterns:  application patterns, each with the modes that suit it and why (the LLM prompt
//              quotes them; the rules cite them)
//   rules:     the rules reasoner's rules (modeselect/reason/rules.h): conditions on facts and
//              signals, and the votes they give the modes
//   min_confidence: below it a decision becomes the fallback (mode 3)
//
// Thread-safety: value types.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace bb::modeselect {

struct ModeKnowledge {
  int mode = 0;  // 1..4
  std::string name;
  std::string summary;
  std::vector<std::string> strengths;
  std::vector<std::string> weaknesses;
};

struct PatternKnowledge {
  std::string id;
  std::string description;
  std::vector<int> modes;  // the modes that suit it, best first
  std::string why;
};

// A test on one fact (its count of findings, or its largest value) or one signal.
struct Condition {
  enum class Op { kPresent, kAbsent, kGe, kGt, kLe, kLt };
  std::string subject;  // a fact name (Facts()) or a signal name (Signals())
  Op op = Op::kPresent;
  double value = 0;  // for the comparisons
  std::string text;  // as written in the file, for explanations
};

struct Rule {
  std::string id;
  std::string description;
  std::vector<Condition> all;      // every one must hold
  std::vector<Condition> any;      // and at least one of these, when any are given
  std::array<double, 4> votes{};   // added to modes 1..4 when the rule fires
  std::array<bool, 4> excludes{};  // modes the rule rules out (their semantics break)
  std::string pattern;             // the PatternKnowledge id it stands for, or ""
  std::string risk;                // a risk to report when the rule fires, or ""
};

struct KnowledgeBase {
  std::vector<ModeKnowledge> modes;
  std::vector<PatternKnowledge> patterns;
  std::vector<Rule> rules;
  double min_confidence = 0.7;
};

}  // namespace bb::modeselect
