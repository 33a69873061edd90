// The selector's evaluation against a labelled corpus (bb-modeselect eval): every case decided
// from its evidence, scored against its label — the oracle's measured best mode, with the modes
// whose runs overlapped it (ties), any of which counts as right — as accuracy, a confusion
// matrix (label by selected mode), each case's decision and reason, and the time per decision;
// for three ablations: static and profile evidence together, static only, profile only.
//
// Thread-safety: pure functions, but for the reasoner they are given.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fs/base/clock.h"
#include "modeselect/decision.h"
#include "modeselect/evidence.h"
#include "modeselect/knowledge.h"
#include "modeselect/reason/reasoner.h"

namespace bb::modeselect {

struct EvalCase {
  std::string name;
  int label = 3;              // the oracle's best mode
  std::vector<int> accepted;  // the label and its ties
  std::optional<StaticEvidence> statics;
  std::optional<std::vector<Signal>> profile;
  uint32_t nodes = 0;
  double gather_ms = 0;  // reading the job and its profile; counted into every decision's time
};

enum class Ablation { kBoth, kStaticOnly, kProfileOnly };
const char* AblationName(Ablation a);

struct CaseOutcome {
  std::string name;
  int label = 3;
  std::vector<int> accepted;
  Decision decision;
  bool correct = false;
};

struct EvalRun {
  Ablation ablation = Ablation::kBoth;
  std::vector<CaseOutcome> cases;
  int correct = 0;
  double accuracy = 0;                            // correct / cases
  std::array<std::array<int, 4>, 4> confusion{};  // [label - 1][selected - 1]
  double median_ms = 0, max_ms = 0;               // time per decision
};

// The three ablations, in the order both, static only, profile only (a case without the
// evidence an ablation keeps is decided from none: the fallback).
std::vector<EvalRun> Evaluate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
                              const Clock& clock);

// The report: accuracy per ablation, the confusion matrix and each case of the first run, and
// the misses of every run.
std::string EvalMarkdown(const std::vector<EvalRun>& runs);
nlohmann::json EvalJson(const std::vector<EvalRun>& runs);

}  // namespace bb::modeselect
