// The rules reasoner: the default, deterministic and offline. Every rule of the knowledge base
// (modeselect/knowledge.h) is tested against the evidence; a rule whose conditions hold fires,
// adding its votes to the modes and ruling out the modes it excludes (their semantics would
// break). The mode with the highest score wins (mode 3, distributed hashing, starts with the
// knowledge base's prior, and wins ties: it is right for any job); the confidence grows with the
// winner's margin over the next mode. The decision names the rules that fired, cites the
// findings and signals their conditions looked at, and reports their risks.
//
// Thread-safety: ParseCondition and Evaluate are pure; a RulesReasoner holds no state.
#pragma once

#include <string>
#include <string_view>

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

class RulesReasoner final : public Reasoner {
 public:
  std::string_view name() const override { return "rules"; }
  // A decision (never an error: with no rule firing, mode 3 at confidence 0, which Finalize
  // turns into the fallback). elapsed_ms is left to the caller.
  Result<Decision> Decide(const Evidence& evidence, const KnowledgeBase& kb) override;
};

}  // namespace bb::modeselect
