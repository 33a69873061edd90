// Reasoner: the seam between the evidence and the decision. A reasoner turns one job's evidence
// and the knowledge base into a Decision, or says why it could not; Finalize() turns either into
// the decision the mode selector prints, so every failure ends in the fallback (mode 3) and says
// why. Two implementations: the deterministic rules engine (the default, "rules") and the LLM
// over an OpenAI-compatible API (modeselect/reason/llm.h, "llm").
//
// Thread-safety: a Reasoner is used by one thread at a time; Finalize is a pure function.
#pragma once

#include <string_view>

#include "fs/base/status.h"
#include "modeselect/decision.h"
#include "modeselect/evidence.h"
#include "modeselect/knowledge.h"

namespace bb::modeselect {

class Reasoner {
 public:
  Reasoner() = default;
  Reasoner(const Reasoner&) = delete;
  Reasoner& operator=(const Reasoner&) = delete;
  virtual ~Reasoner() = default;

  // "rules" or "llm": what the decision's selected_by says.
  virtual std::string_view name() const = 0;

  // A decision with selected_by = name(), or an error saying why none could be made (the
  // implementation documents its codes). Reads nothing but its arguments and, for the LLM, the
  // server it was given.
  virtual Result<Decision> Decide(const Evidence& evidence, const KnowledgeBase& kb) = 0;
};

// The final decision:
//   - an error becomes Fallback() with the error in primary_reason;
//   - a decision whose mode is outside 1..4, or whose confidence is not a number in 0..1, is an
//     error and becomes the fallback likewise;
//   - a decision with confidence below `min_confidence` becomes the fallback, the reason naming
//     the mode it would have chosen, and keeps the reasoner's io_topology, scores, evidence,
//     risks, rules fired and elapsed time, and reports the reasoner's pick and confidence as its
//     own_mode, own_confidence and own_by;
//   - any other decision is returned unchanged.
// A fallback has selected_by "fallback", mode 3 and confidence 0 (the reasoner's own confidence
// is in own_confidence).
Decision Finalize(const Result<Decision>& outcome, double min_confidence);

}  // namespace bb::modeselect
