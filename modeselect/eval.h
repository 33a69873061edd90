// The selector's evaluation against a labelled corpus (bb-modeselect eval): every case decided
// from its evidence, scored against its label — the oracle's measured best mode, with the modes
// whose runs overlapped it (ties), any of which counts as right — as accuracy, a confusion
// matrix (label by selected mode), each case's decision and reason, and the time per decision;
// for three ablations: static and profile evidence together, static only, profile only.
//
// Beyond right or wrong, what a selection costs, from the oracle's medians:
//   regret: the selected mode's median cost over the best unbroken mode's, minus 1. A selected
//     mode that breaks the job is a failure: counted in `broke`, and in the regret as
//     DecisionSettings::break_slowdown - 1 (the slowdown the calibration gives a broken run).
//     A selected mode the oracle did not measure is left out of the regret and the speedup.
//   speedup captured: G = the geometric mean over the cases of mode 3's cost over a mode's; the
//     oracle's G (always the best mode) and the selections' G (a broken selection at
//     break_slowdown times the best), and the share (G_selected - 1) / (G_oracle - 1) of the
//     oracle's gain that the selections capture.
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
  // What the oracle measured, per mode 1..4: the median cost (its figure, inverted when higher
  // is better, so lower is always better; 0 = not measured) and whether the mode broke the job.
  std::array<double, 4> cost{};
  std::array<bool, 4> broke{};
  std::optional<StaticEvidence> statics;
  std::optional<std::vector<Signal>> profile;
  uint32_t nodes = 0;
  double gather_ms = 0;  // reading the job and its profile; counted into every decision's time
};

enum class Ablation { kBoth, kStaticOnly, kProfileOnly };
const char* AblationName(Ablation a);

// The evidence an ablation keeps of a case.
Evidence CaseEvidence(const EvalCase& c, Ablation a);

// The slowdown of each mode on `c` (cost over the best unbroken mode's; 0 when the mode was not
// measured or broke), all 0 when nothing unbroken was measured.
std::array<double, 4> CaseSlowdowns(const EvalCase& c);

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
  double accuracy = 0;  // correct / cases
  int broke = 0;        // selections the oracle disqualified
  int scored = 0;       // cases with the selected mode measured (the regret's and speedup's)
  double mean_regret = 0, max_regret = 0;
  double speedup_oracle = 1, speedup_selected = 1;  // geometric means over mode 3
  double speedup_share = 0;                         // of the oracle's gain, 0..1 (below 0: slower than mode 3)
  std::array<std::array<int, 4>, 4> confusion{};    // [label - 1][selected - 1]
  double median_ms = 0, max_ms = 0;                 // time per decision
};

// The three ablations, in the order both, static only, profile only (a case without the
// evidence an ablation keeps is decided from none: the fallback). With `per_case` (one per
// case), case i is decided with the knowledge base's calibration replaced by per_case[i] (the
// leave-one-out calibrations of the corpus, modeselect/calibrate.h).
std::vector<EvalRun> Evaluate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
                              const Clock& clock, const std::vector<Calibration>* per_case = nullptr);

// Fills `run`'s regret, failures and speedups (above) from its cases' outcomes and `cases`' medians.
void ScoreCosts(const std::vector<EvalCase>& cases, double break_slowdown, EvalRun* run);

// The report: per ablation accuracy, regret, failures, speedup captured and time per decision;
// the confusion matrix and each case of the first run, and the misses of every run. `title`
// heads it when not empty.
std::string EvalMarkdown(const std::vector<EvalRun>& runs, const std::string& title = "");
nlohmann::json EvalJson(const std::vector<EvalRun>& runs);

}  // namespace bb::modeselect
