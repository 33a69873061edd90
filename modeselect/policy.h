// The decision rule: from what the rules make of a job's evidence and what the corpus measured
// on jobs like it, the mode with the lowest expected slowdown (its time over the best mode's);
// mode 3 when the evidence conflicts; node-local mode (1) only when the evidence rules out
// cross-node use (the rules analysis allows mode 1 only then).
//
//   evidence conflicts: two modes other than 3, each the favourite of a different fired rule,
//     lie within DecisionSettings::conflict_margin score units of each other, and one of them is
//     the rules' pick; or, with both kinds of evidence, the static findings alone and the probe
//     profile alone pick different modes other than 3 among the modes the whole evidence allows.
//   expected slowdown: per mode, the corpus's estimate for the rules' carrier rule
//     (modeselect/calibration.h); estimates within DecisionSettings::even_within of each other
//     are even, and an even mode 3 wins, then the higher score.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "modeselect/calibration.h"
#include "modeselect/knowledge.h"
#include "modeselect/reason/rules.h"

namespace bb::modeselect {

// A fired rule and the mode it gives the most (0 when it gives none a positive vote).
struct RuleFavourite {
  std::string rule;
  int mode = 0;
};

// Everything the decision rule looks at, as plain data.
struct PolicyInput {
  std::array<double, 4> score{};  // the rules' scores, modes 1..4
  std::array<bool, 4> allowed{};  // the modes the evidence allows (mode 3 always is)
  int rules_pick = 3;             // the allowed mode of the highest score
  std::vector<RuleFavourite> favourites;
  int static_reading = 0;   // the static evidence's own pick among `allowed`; 0 unless both kinds
  int profile_reading = 0;  // the profile's own pick likewise
  std::array<double, 4> expected_slowdown{1, 1, 1, 1};  // per mode, 1 = as fast as the best
};

struct PolicyChoice {
  int mode = 3;    // the decision
  int lowest = 3;  // the allowed mode of the lowest expected slowdown: the decision unless in conflict
  bool conflict = false;
  std::string why;  // the conflict in words, "" without one
};

PolicyChoice ChooseMode(const PolicyInput& in, const DecisionSettings& settings);

// The decision rule applied to a job: `main` is the rules' analysis of all its evidence,
// `static_only` and `profile_only` of each kind alone (null unless the job has both kinds).
struct RulesDecision {
  PolicyInput input;
  PolicyChoice choice;
  std::array<ModeEstimate, 4> estimate{};
  double raw_confidence = 0;  // the estimate's share right for the decided mode
  double confidence = 0;      // calibrated (the raw one when there is no calibration)
  double own_confidence = 0;  // calibrated, for choice.lowest (differs from `confidence` in a conflict)
};
// The estimates come from `calibration` and the settings from `kb` (its own calibration is not
// read: the evaluation decides with one calibrated without the job's label). Without a
// calibration the confidence is the rules' raw one for their own pick and 0 for a fallback.
RulesDecision DecideByRules(const RulesAnalysis& main, const RulesAnalysis* static_only,
                            const RulesAnalysis* profile_only, const Calibration& calibration, const KnowledgeBase& kb);

// The rules' analyses of `e` (all of it, and each kind alone when it has both) and the decision
// rule on them, with `calibration`. `analysis` receives the analysis of all the evidence.
// The rules reasoner's decision (RulesReasoner::Decide): `a`'s citations, reasons and risks, the
// decision rule's mode and calibrated confidence, and what the confidence means. A conflict is a
// fallback (selected_by "fallback", mode 3 at its calibrated confidence) that names the conflict
// and reports the mode of the lowest expected slowdown as the rules' own pick; a decision for
// another mode than the rules' highest score says why.
Decision DecisionOf(const RulesAnalysis& a, const RulesDecision& rd, const Evidence& e, const KnowledgeBase& kb);

RulesDecision DecideEvidence(const Evidence& e, const Calibration& calibration, const KnowledgeBase& kb,
                             RulesAnalysis* analysis = nullptr);

}  // namespace bb::modeselect
