// The mode selector's pipeline, shared by bb-modeselect and its evaluation: the evidence of a
// job (its static findings and the signals of one probe run) turned into the final decision by
// a reasoner (Finalize: any failure, and a confidence below the knowledge base's threshold, end
// in mode 3 with the reason), timed on a Clock.
//
// Thread-safety: pure functions, but for the reasoner they are given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fs/base/clock.h"
#include "modeselect/decision.h"
#include "modeselect/evidence.h"
#include "modeselect/knowledge.h"
#include "modeselect/reason/reasoner.h"

namespace bb::modeselect {

// Evidence from what was found: `statics` when the job's script and sources were read, the
// profile's signals when a probe profile or a Darshan log was (have_profile), and the nodes
// the job will run on (0: from #SBATCH, when given there).
Evidence MakeEvidence(std::optional<StaticEvidence> statics, std::optional<std::vector<Signal>> profile_signals,
                      uint32_t nodes);

// The reasoner's decision, finalized; elapsed_ms counts from `start_ns` (the clock's
// monotonic time when the evidence started to be gathered) to the decision.
Decision Decide(const Evidence& e, const KnowledgeBase& kb, Reasoner& reasoner, const Clock& clock, int64_t start_ns);

// The decision as a person reads it: mode, confidence, who decided and why; with `explain`
// also the scores, the rules that fired, the evidence and the risks.
std::string RenderDecision(const Decision& d, bool explain);

}  // namespace bb::modeselect
