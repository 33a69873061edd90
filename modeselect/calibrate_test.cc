// Making the calibration from labelled cases: the groups by the rule that carried the rules'
// pick, the per-mode figures from the oracle's medians, and leave-one-out decisions.
#include "modeselect/calibrate.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "modeselect/calibration.h"
#include "modeselect/reason/rules.h"

namespace bb::modeselect {
namespace {

EvalCase Case(const char* name, std::array<double, 4> cost, std::array<bool, 4> broke, std::vector<int> accepted) {
  EvalCase c;
  c.name = name;
  c.label = accepted.front();
  c.accepted = std::move(accepted);
  c.cost = cost;
  c.broke = broke;
  StaticEvidence s;
  s.findings = {{"file.per_rank", "job.sh", 3, "out.$RANK", 1}};
  c.statics = s;  // no profile: the profile-only reading has no evidence
  return c;
}

KnowledgeBase Kb() {
  KnowledgeBase kb;
  Rule r;
  r.id = "per-rank";
  r.all = {*ParseCondition("file.per_rank")};
  r.votes = {0, 0, 0, 2};
  kb.rules = {r};
  return kb;
}

TEST_CASE("calibrate: groups by carrier, slowdowns from the medians, leave-one-out confidence",
          "[modeselect][calibration]") {
  const std::vector<EvalCase> cases = {Case("a", {1, 1.5, 1.2, 1.0}, {true, false, false, false}, {4}),
                                       Case("b", {0, 1.2, 1.0, 1.1}, {}, {3}), Case("c", {0, 2, 2, 1}, {}, {4})};
  const KnowledgeBase kb = Kb();
  const Calibration c = Calibrate(cases, kb, "three jobs");
  CHECK(c.source == "three jobs");
  CHECK(c.jobs == 3);
  REQUIRE(c.groups.size() == 2);
  const SlowdownGroup* none = FindGroup(c, "");  // the profile-only readings: no evidence, no carrier
  const SlowdownGroup* g = FindGroup(c, "per-rank");
  REQUIRE(none != nullptr);
  REQUIRE(g != nullptr);
  CHECK(g->jobs == std::vector<std::string>{"a", "b", "c"});
  struct Row {
    int mode;
    int ran, broke, right;
    double slowdown;
  };
  const Row rows[] = {
      {1, 0, 1, 0, 1},  // broke a, not measured on b and c
      {2, 3, 0, 0, std::cbrt(1.5 * 1.2 * 2)},
      {3, 3, 0, 1, std::cbrt(1.2 * 1 * 2)},
      {4, 3, 0, 2, std::cbrt(1 * 1.1 * 1)},
  };
  for (const Row& r : rows) {
    INFO("mode " << r.mode);
    CHECK(g->ran[r.mode - 1] == r.ran);
    CHECK(g->broke[r.mode - 1] == r.broke);
    CHECK(g->right[r.mode - 1] == r.right);
    CHECK(g->slowdown[r.mode - 1] == Approx(r.slowdown));
  }
  int decisions = 0;
  for (const ConfidenceStep& s : c.confidence) decisions += s.decisions;
  CHECK(decisions == 9);  // three readings of three cases
  CHECK(SameCalibration(c, Calibrate(cases, kb, "again")));

  // Leaving a case out: its label is in no group.
  const auto groups_of = CaseGroups(cases, kb);
  const Calibration loo = LeaveOneOut(cases, groups_of, 0, c);
  CHECK(loo.jobs == 2);
  REQUIRE(FindGroup(loo, "per-rank") != nullptr);
  CHECK(FindGroup(loo, "per-rank")->jobs == std::vector<std::string>{"b", "c"});
  CHECK(FindGroup(loo, "per-rank")->broke[0] == 0);
  CHECK_FALSE(SameCalibration(loo, c));
}

}  // namespace
}  // namespace bb::modeselect
