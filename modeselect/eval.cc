#include "modeselect/eval.h"

#include <algorithm>
#include <sstream>

#include "modeselect/select.h"

namespace bb::modeselect {
namespace {

EvalRun RunOne(Ablation a, const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
               const Clock& clock) {
  EvalRun run;
  run.ablation = a;
  std::vector<double> times;
  for (const EvalCase& c : cases) {
    int64_t start = clock.MonotonicNs();
    Evidence e = MakeEvidence(a == Ablation::kProfileOnly ? std::nullopt : c.statics,
                              a == Ablation::kStaticOnly ? std::nullopt : c.profile, c.nodes);
    CaseOutcome o{c.name, c.label, c.accepted, Decide(e, kb, reasoner, clock, start), false};
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

std::vector<EvalRun> Evaluate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, Reasoner& reasoner,
                              const Clock& clock) {
  std::vector<EvalRun> runs;
  for (Ablation a : {Ablation::kBoth, Ablation::kStaticOnly, Ablation::kProfileOnly}) {
    runs.push_back(RunOne(a, cases, kb, reasoner, clock));
  }
  return runs;
}

std::string EvalMarkdown(const std::vector<EvalRun>& runs) {
  std::ostringstream o;
  o.precision(1);
  o << std::fixed;
  o << "| evidence | right | cases | accuracy | time per decision, median / max |\n|---|---|---|---|---|\n";
  for (const EvalRun& r : runs) {
    o << "| " << AblationName(r.ablation) << " | " << r.correct << " | " << r.cases.size() << " | " << 100 * r.accuracy
      << " % | " << r.median_ms << " / " << r.max_ms << " ms |\n";
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
                   {"confusion", r.confusion},
                   {"median_ms", r.median_ms},
                   {"max_ms", r.max_ms},
                   {"results", cases}});
  }
  return out;
}

}  // namespace bb::modeselect
