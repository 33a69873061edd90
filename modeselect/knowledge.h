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

// A test on one fact or one signal, written in the knowledge base as text (ParseCondition in
// modeselect/reason/rules.h reads it):
//   NAME                  a fact with at least one finding; a signal that is present and not 0
//   !NAME                 a fact with no finding; a signal that is absent or 0
//   SIGNAL OP NUMBER      a signal that is present and compares so (OP: >= > <= < == !=)
//   count(FACT) OP NUMBER the number of the fact's findings
//   max(FACT) OP NUMBER   the largest value among the fact's findings (0 when none)
struct Condition {
  enum class Kind { kFact, kSignal };
  enum class Op { kPresent, kAbsent, kGe, kGt, kLe, kLt, kEq, kNe };
  enum class Of { kCount, kMax };  // for facts compared with a number
  std::string subject;             // a fact name (Facts()) or a signal name (Signals())
  Kind kind = Kind::kFact;
  Op op = Op::kPresent;
  Of of = Of::kCount;
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
  std::string reason;              // the sentence a decision cites when this rule carries it
  std::string topology;            // the I/O topology the rule recognises ("N-N private", ...), or ""
  std::string pattern;             // the PatternKnowledge id it stands for, or ""
  std::string risk;                // a risk to report when the rule fires, or ""
};

struct KnowledgeBase {
  std::vector<ModeKnowledge> modes;
  std::vector<PatternKnowledge> patterns;
  std::vector<Rule> rules;
  double min_confidence = 0.7;
  // The rules reasoner's confidence is 1 - exp(-margin / confidence_scale), margin being the
  // winning mode's score minus the next one's.
  double confidence_scale = 1.0;
  double prior_mode3 = 0.5;  // the default's head start: with no evidence, mode 3
};

}  // namespace bb::modeselect
