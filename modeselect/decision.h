// Decision: the mode selector's answer — the layout mode for a job, how sure, why, and who
// decided — and the fallback every failure ends in (mode 3, distributed hashing, which is
// correct for any job).
//
// Thread-safety: value types and pure functions.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bb::modeselect {

struct EvidenceRef {
  std::string file;  // "" for a profile signal
  int line = 0;
  std::string finding;  // what was found there, in words
};

struct Decision {
  int mode = 3;                // 1..4
  double confidence = 0;       // 0..1
  std::string io_topology;     // e.g. "N-N private", "N-N then cross-node read", "N-1 shared", "metadata"
  std::string primary_reason;  // one sentence
  std::vector<std::string> risk_analysis;
  std::vector<EvidenceRef> evidence;
  std::array<double, 4> scores{};        // per mode 1..4, 0..1
  std::string selected_by = "rules";     // rules | llm | fallback
  std::vector<std::string> rules_fired;  // knowledge-base rule ids (rules reasoner)
  double elapsed_ms = 0;
  // A fallback's reasoner pick: the mode the reasoner chose before the fallback replaced it
  // (0: none, e.g. the reasoner failed) and the reasoner's confidence in it.
  int own_mode = 0;
  double own_confidence = 0;
  std::string own_by;              // who made that pick: rules | llm
  std::string confidence_meaning;  // what `confidence` means (calibrated on what), "" = unknown
};

// Mode 3 with selected_by "fallback", confidence 0 and `why` as the primary reason.
Decision Fallback(const std::string& why);

// The decision as the JSON object bb-modeselect --json prints: selected_mode, confidence,
// io_topology, primary_reason, risk_analysis, evidence [{file, line, finding}], scores
// {"1": s, ...}, selected_by, rules_fired, elapsed_ms, confidence_meaning, and for a fallback
// with a reasoner's own pick, own_pick {mode, confidence, by}.
nlohmann::json DecisionJson(const Decision& d);

}  // namespace bb::modeselect
