#include "modeselect/reason/auto.h"

#include <cstdio>

namespace bb::modeselect {
namespace {

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

std::string RulesCannotDecide(const RulesAnalysis& a, const RulesDecision& rd) {
  if (!a.evidence_moved) return "the rules abstain: no rule voted for or excluded a mode";
  if (rd.choice.conflict) return "the evidence conflicts: " + rd.choice.why;
  return "";
}

std::string RulesFindingsText(const RulesAnalysis& a, const RulesDecision& rd, std::string_view why) {
  std::string out = "- " + std::string(why) + "\n- rules fired:";
  if (a.fired.empty()) out += " none";
  for (const Rule* r : a.fired) out += " " + r->id;
  out += "\n- scores (mode 3 starts with the prior):";
  for (int m = 0; m < 4; ++m) out += " " + std::to_string(m + 1) + "=" + Fixed2(a.score[m]);
  out += "\n- modes the evidence allows:";
  for (int m = 0; m < 4; ++m) {
    if (m == 2 || a.allowed[m]) out += " " + std::to_string(m + 1);
  }
  out += a.cross_node_ruled_out ? "" : " (node-local mode 1 is not allowed: nothing rules out cross-node use)";
  out += "\n- the decision rule's pick: mode " + std::to_string(rd.choice.lowest) + ", expected slowdown per mode:";
  for (int m = 0; m < 4; ++m) out += " " + std::to_string(m + 1) + "=" + Fixed2(rd.estimate[m].slowdown);
  return out + "\n";
}

Result<Decision> AutoReasoner::Decide(const Evidence& e, const KnowledgeBase& kb) {
  RulesAnalysis a;
  const RulesDecision rd = DecideEvidence(e, kb.calibration, kb, &a);
  Decision rules = DecisionOf(a, rd, e, kb);
  const std::string why = RulesCannotDecide(a, rd);
  if (why.empty()) return rules;
  Result<Decision> asked = llm_->DecideWith(e, kb, RulesFindingsText(a, rd, why));
  if (!asked.has_value()) {
    rules.primary_reason +=
        "; the LLM was asked because " + why + ", and gave no answer (" + asked.error().ToString() + ")";
    return rules;
  }
  Decision d = Finalize(asked, kb.min_confidence);
  d.primary_reason = "asked the LLM because " + why + ": " + d.primary_reason;
  d.confidence_meaning = "the LLM's own confidence, not calibrated";
  if (d.rules_fired.empty()) d.rules_fired = rules.rules_fired;
  return d;
}

}  // namespace bb::modeselect
