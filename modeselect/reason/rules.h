// The rules reasoner: the default, deterministic and offline. Every rule of the knowledge base
// (modeselect/knowledge.h) is tested against the evidence; a rule whose conditions hold fires,
// adding its votes to the modes and ruling out the modes it excludes (their semantics would
// break). Node-local mode (1) is ruled out too unless a fired rule rules out cross-node use. The
// mode with the highest score wins (mode 3, distributed hashing, starts with the knowledge
// base's prior, and wins ties: it is right for any job); the raw confidence grows with the
// winner's margin over the next mode. The decision names the rules that fired, cites the
// findings and signals their conditions looked at, and reports their risks. The final decision
// is the decision rule's (modeselect/policy.h), which weighs this analysis against the corpus.
//
// Thread-safety: ParseCondition, Evaluate and AnalyzeRules are pure; a RulesReasoner holds no
// state.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/status.h"
#include "modeselect/evidence.h"
#include "modeselect/knowledge.h"
#include "modeselect/reason/reasoner.h"

namespace bb::modeselect {

// Reads a condition's text (the forms of knowledge.h). EINVAL naming the text when it is not one
// of them or names a fact or signal that does not exist.
Result<Condition> ParseCondition(std::string_view text);
// Whether `c` holds for `e`.
bool Evaluate(const Condition& c, const Evidence& e);
// Whether `r` fires for `e`: every condition of `all`, and one of `any` when there are any.
bool Fires(const Rule& r, const Evidence& e);

// What the rules make of one job's evidence.
struct RulesAnalysis {
  std::vector<const Rule*> fired;     // into the knowledge base's rules, which must outlive this
  std::array<double, 4> score{};      // mode 3's prior plus every fired rule's votes, per mode 1..4
  std::array<bool, 4> allowed{};      // modes no fired rule excludes; mode 1 also needs the next
  bool cross_node_ruled_out = false;  // a fired rule rules out cross-node use and none excludes mode 1
  bool evidence_moved = false;        // a fired rule votes or excludes
  int pick = 3;                       // the allowed mode with the highest score (mode 3 wins ties)
  double margin = 0;                  // the pick's lead over the next allowed mode
  const Rule* carrier = nullptr;      // the fired rule that gives the pick the most, or null
};
RulesAnalysis AnalyzeRules(const Evidence& e, const KnowledgeBase& kb);
// `a` (of `e`) as a decision for the rules' highest score: its raw confidence 1 - exp(-margin /
// scale) (0 when no rule voted or excluded), the carrier's reason and topology, the fired rules,
// evidence and risks.
Decision RulesDecisionOf(const RulesAnalysis& a, const Evidence& e, const KnowledgeBase& kb);

class RulesReasoner final : public Reasoner {
 public:
  std::string_view name() const override { return "rules"; }
  // The decision rule's decision (modeselect/policy.h: DecideEvidence, DecisionOf) with the
  // knowledge base's calibration. Never an error. elapsed_ms is left to the caller.
  Result<Decision> Decide(const Evidence& evidence, const KnowledgeBase& kb) override;
};

}  // namespace bb::modeselect
