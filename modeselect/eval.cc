#include "modeselect/eval.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "modeselect/select.h"

namespace bb::modeselect {
namespace {

EvalRun RunOne(Ablation a, const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
               const Clock& clock, const std::vector<Calibration>* per_case) {
  EvalRun run;
  run.ablation = a;
  std::vector<double> times;
  KnowledgeBase own = kb;  // the knowledge base with a case's calibration in it
  for (size_t i = 0; i < cases.size(); ++i) {
    const EvalCase& c = cases[i];
    if (per_case != nullptr) own.calibration = (*per_case)[i];
    int64_t start = clock.MonotonicNs();
    Evidence e = CaseEvidence(c, a);
    CaseOutcome o{c.name, c.label, c.accepted, Decide(e, per_case ? own : kb, reasoner, clock, start), false};
    o.decision.elapsed_ms += c.gather_ms;
    o.correct = std::find(c.accepted.begin(), c.accepted.end(), o.decision.mode) != c.accepted.end();
    run.correct += o.correct;
    if (c.label >= 1 && c.label <= 4 && o.decision.mode >= 1 && o.decision.mode <= 4) {
      run.confusion[c.label - 1][o.decision.mode - 1]++;
    }
    times.push_back(o.decision.elapsed_ms);
    run.cases.push_back(std::move(o));
  }
  run.accuracy = cases.empty() ? 0 : static_cast<double>(run.correct) / static_cast<double>(cases.size());
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    run.median_ms =
        times.size() % 2 ? times[times.size() / 2] : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
    run.max_ms = times.back();
  }
  ScoreCosts(cases, kb.decision.break_slowdown, &run);
  return run;
}

std::string Modes(const std::vector<int>& modes) {
  std::string out;
  for (int m : modes) out += (out.empty() ? "" : ", ") + std::to_string(m);
  return out;
}

}  // namespace

const char* AblationName(Ablation a) {
  switch (a) {
    case Ablation::kBoth:
      return "static + profile";
    case Ablation::kStaticOnly:
      return "static only";
    case Ablation::kProfileOnly:
      return "profile only";
  }
  return "?";
}

Evidence CaseEvidence(const EvalCase& c, Ablation a) {
  return MakeEvidence(a == Ablation::kProfileOnly ? std::nullopt : c.statics,
                      a == Ablation::kStaticOnly ? std::nullopt : c.profile, c.nodes);
}

std::array<double, 4> CaseSlowdowns(const EvalCase& c) {
  double best = 0;
  for (int m = 0; m < 4; ++m) {
    if (!c.broke[m] && c.cost[m] > 0 && (best == 0 || c.cost[m] < best)) best = c.cost[m];
  }
  std::array<double, 4> out{};
  for (int m = 0; m < 4; ++m) {
    if (best > 0 && !c.broke[m] && c.cost[m] > 0) out[m] = c.cost[m] / best;
  }
  return out;
}

void ScoreCosts(const std::vector<EvalCase>& cases, double break_slowdown, EvalRun* run) {
  double regret_sum = 0, log_oracle = 0, log_selected = 0;
  int speedups = 0;
  run->broke = run->scored = 0;
  run->max_regret = 0;
  for (size_t i = 0; i < cases.size() && i < run->cases.size(); ++i) {
    const EvalCase& c = cases[i];
    const int m = run->cases[i].decision.mode - 1;
    const std::array<double, 4> slow = CaseSlowdowns(c);
    const bool broke = m >= 0 && m < 4 && c.broke[m];
    if (m < 0 || m > 3 || (!broke && slow[m] == 0)) continue;  // not measured
    const double s = broke ? break_slowdown : slow[m];
    run->broke += broke;
    run->scored++;
    regret_sum += s - 1;
    run->max_regret = std::max(run->max_regret, s - 1);
    if (slow[2] > 0) {  // mode 3 measured: the speedups over it
      log_oracle += std::log(slow[2]);
      log_selected += std::log(slow[2] / s);
      speedups++;
    }
  }
  run->mean_regret = run->scored ? regret_sum / run->scored : 0;
  run->speedup_oracle = speedups ? std::exp(log_oracle / speedups) : 1;
  run->speedup_selected = speedups ? std::exp(log_selected / speedups) : 1;
  const double gain = run->speedup_oracle - 1;
  run->speedup_share = gain > 1e-9 ? (run->speedup_selected - 1) / gain : 1;
}

std::vector<EvalRun> Evaluate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
                              const Clock& clock, const std::vector<Calibration>* per_case) {
  std::vector<EvalRun> runs;
  for (Ablation a : {Ablation::kBoth, Ablation::kStaticOnly, Ablation::kProfileOnly}) {
    runs.push_back(RunOne(a, cases, kb, reasoner, clock, per_case));
  }
  return runs;
}

std::string EvalMarkdown(const std::vector<EvalRun>& runs, const std::string& title) {
  std::ostringstream o;
  o.precision(1);
  o << std::fixed;
  if (!title.empty()) o << "## " << title << "\n\n";
  o << "| evidence | right | cases | accuracy | regret, mean / max | broke | speedup over mode 3, selected / oracle | "
       "share of the oracle's | time per decision, median / max |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const EvalRun& r : runs) {
    o << "| " << AblationName(r.ablation) << " | " << r.correct << " | " << r.cases.size() << " | " << 100 * r.accuracy
      << " % | " << 100 * r.mean_regret << " % / " << 100 * r.max_regret << " % | " << r.broke << " | ";
    o.precision(3);
    o << r.speedup_selected << " / " << r.speedup_oracle;
    o.precision(1);
    o << " | " << 100 * r.speedup_share << " % | " << r.median_ms << " / " << r.max_ms << " ms |\n";
  }
  if (runs.empty()) return o.str();
  const EvalRun& first = runs.front();
  o << "\nConfusion (" << AblationName(first.ablation) << "; rows: the oracle's best mode, columns: selected)\n\n"
    << "| best \\ selected | 1 | 2 | 3 | 4 |\n|---|---|---|---|---|\n";
  for (int l = 0; l < 4; ++l) {
    o << "| " << l + 1;
    for (int m = 0; m < 4; ++m) o << " | " << first.confusion[l][m];
    o << " |\n";
  }
  o << "\n| case | label (ties) | selected | confidence | by | right | reason |\n|---|---|---|---|---|---|---|\n";
  o.precision(2);
  for (const CaseOutcome& c : first.cases) {
    o << "| " << c.name << " | " << c.label << " (" << Modes(c.accepted) << ") | " << c.decision.mode << " | "
      << c.decision.confidence << " | " << c.decision.selected_by << " | " << (c.correct ? "yes" : "**no**") << " | "
      << c.decision.primary_reason << " |\n";
  }
  for (const EvalRun& r : runs) {
    for (const CaseOutcome& c : r.cases) {
      if (!c.correct) {
        o << "\nMiss (" << AblationName(r.ablation) << "): " << c.name << " selected " << c.decision.mode
          << ", accepted " << Modes(c.accepted) << ": " << c.decision.primary_reason;
      }
    }
  }
  o << "\n";
  return o.str();
}

nlohmann::json EvalJson(const std::vector<EvalRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const EvalRun& r : runs) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseOutcome& c : r.cases) {
      cases.push_back({{"name", c.name},
                       {"label", c.label},
                       {"accepted", c.accepted},
                       {"correct", c.correct},
                       {"decision", DecisionJson(c.decision)}});
    }
    out.push_back({{"evidence", AblationName(r.ablation)},
                   {"correct", r.correct},
                   {"cases", r.cases.size()},
                   {"accuracy", r.accuracy},
                   {"mean_regret", r.mean_regret},
                   {"max_regret", r.max_regret},
                   {"broke", r.broke},
                   {"scored", r.scored},
                   {"speedup_selected", r.speedup_selected},
                   {"speedup_oracle", r.speedup_oracle},
                   {"speedup_share", r.speedup_share},
                   {"confusion", r.confusion},
                   {"median_ms", r.median_ms},
                   {"max_ms", r.max_ms},
                   {"results", cases}});
  }
  return out;
}

}  // namespace bb::modeselect
