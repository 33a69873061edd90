#include "modeselect/calibrate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "modeselect/policy.h"

namespace bb::modeselect {
namespace {

constexpr Ablation kReadings[] = {Ablation::kBoth, Ablation::kStaticOnly, Ablation::kProfileOnly};

bool Accepted(const EvalCase& c, int mode) {
  return std::find(c.accepted.begin(), c.accepted.end(), mode) != c.accepted.end();
}

}  // namespace

std::vector<std::vector<std::string>> CaseGroups(const std::vector<EvalCase>& cases, const KnowledgeBase& kb) {
  std::vector<std::vector<std::string>> out;
  for (const EvalCase& c : cases) {
    std::set<std::string> groups;
    for (Ablation a : kReadings) {
      const RulesAnalysis r = AnalyzeRules(CaseEvidence(c, a), kb);
      groups.insert(r.carrier != nullptr ? r.carrier->id : "");
    }
    out.emplace_back(groups.begin(), groups.end());
  }
  return out;
}

std::vector<SlowdownGroup> BuildGroups(const std::vector<EvalCase>& cases,
                                       const std::vector<std::vector<std::string>>& groups_of, int left_out) {
  std::map<std::string, SlowdownGroup> by_rule;
  std::map<std::string, std::array<double, 4>> log_sum;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (static_cast<int>(i) == left_out) continue;
    const EvalCase& c = cases[i];
    const std::array<double, 4> slow = CaseSlowdowns(c);
    for (const std::string& rule : groups_of[i]) {
      SlowdownGroup& g = by_rule[rule];
      g.rule = rule;
      g.jobs.push_back(c.name);
      for (int m = 0; m < 4; ++m) {
        if (c.broke[m]) {
          g.broke[m]++;
        } else if (slow[m] > 0) {
          g.ran[m]++;
          log_sum[rule][m] += std::log(slow[m]);
        }
        g.right[m] += !c.broke[m] && Accepted(c, m + 1);
      }
    }
  }
  std::vector<SlowdownGroup> out;
  for (auto& [rule, g] : by_rule) {
    for (int m = 0; m < 4; ++m) g.slowdown[m] = g.ran[m] > 0 ? std::exp(log_sum[rule][m] / g.ran[m]) : 1;
    out.push_back(std::move(g));
  }
  return out;
}

Calibration Calibrate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, const std::string& source) {
  const auto groups_of = CaseGroups(cases, kb);
  std::vector<std::pair<double, bool>> points;
  for (size_t i = 0; i < cases.size(); ++i) {
    Calibration loo;
    loo.jobs = static_cast<int>(cases.size()) - 1;
    loo.groups = BuildGroups(cases, groups_of, static_cast<int>(i));
    for (Ablation a : kReadings) {
      const RulesDecision d = DecideEvidence(CaseEvidence(cases[i], a), loo, kb);
      points.emplace_back(d.raw_confidence, Accepted(cases[i], d.choice.mode));
    }
  }
  Calibration c;
  c.source = source;
  c.jobs = static_cast<int>(cases.size());
  c.groups = BuildGroups(cases, groups_of, -1);
  c.confidence = FitConfidence(std::move(points));
  return c;
}

Calibration LeaveOneOut(const std::vector<EvalCase>& cases, const std::vector<std::vector<std::string>>& groups_of,
                        int i, const Calibration& full) {
  Calibration c;
  c.source = full.source + ", leaving out " + cases[static_cast<size_t>(i)].name;
  c.jobs = static_cast<int>(cases.size()) - 1;
  c.groups = BuildGroups(cases, groups_of, i);
  c.confidence = full.confidence;
  return c;
}

}  // namespace bb::modeselect
