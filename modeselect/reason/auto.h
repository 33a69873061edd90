// AutoReasoner (--reasoner auto): the rules decide (the decision rule, modeselect/policy.h), and
// the LLM is asked only when they cannot: when they abstain (no rule voted for or excluded any
// mode) or the evidence conflicts. The LLM is then given what the rules found — the rules that
// fired, the scores, the conflict, the decision rule's own pick and its expected slowdowns — in
// its prompt.
//
//   rules decide:              the rules' decision, selected_by "rules"
//   LLM answers, confident:    the LLM's decision (selected_by "llm"), its reason naming why it
//                              was asked; its confidence is its own (not calibrated)
//   LLM below the floor:       Finalize's fallback (mode 3) with the LLM's own pick
//   LLM fails:                 the rules' decision (mode 3 when they conflict, with their own
//                              pick), the reason saying the LLM gave no answer and why
//
// Thread-safety: one thread at a time (Reasoner's contract).
#pragma once

#include <string>
#include <string_view>

#include "modeselect/policy.h"
#include "modeselect/reason/llm.h"
#include "modeselect/reason/reasoner.h"

namespace bb::modeselect {

// Why the rules cannot decide `rd` alone ("" when they can): they abstain or conflict.
std::string RulesCannotDecide(const RulesAnalysis& a, const RulesDecision& rd);

// What the rules found, for the LLM's prompt: fired rules, scores, allowed modes, the conflict
// and the decision rule's pick with its expected slowdowns.
std::string RulesFindingsText(const RulesAnalysis& a, const RulesDecision& rd, std::string_view why);

class AutoReasoner final : public Reasoner {
 public:
  // `llm` must outlive this.
  explicit AutoReasoner(LlmReasoner* llm) : llm_(llm) {}
  std::string_view name() const override { return "auto"; }
  // Never an error (above).
  Result<Decision> Decide(const Evidence& evidence, const KnowledgeBase& kb) override;

 private:
  LlmReasoner* const llm_;
};

}  // namespace bb::modeselect
