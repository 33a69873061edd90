// What a selection costs: regret against the oracle's best, failures, and the share of the
// oracle's speedup over mode 3 that the selections capture.
#include "modeselect/eval.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace bb::modeselect {
namespace {

EvalCase Case(std::array<double, 4> cost, std::array<bool, 4> broke) {
  EvalCase c;
  c.cost = cost;
  c.broke = broke;
  return c;
}

TEST_CASE("regret, failures and the speedup captured, from the oracle's medians", "[modeselect][eval]") {
  struct Row {
    const char* what;
    EvalCase c;
    int selected;
    double regret;  // -1: left out
    bool broke;
    double mode3_over_selected;
  };
  const Row rows[] = {
      {"the best mode", Case({1, 1.2, 1.5, 1.0}, {true, false, false, false}), 4, 0, false, 1.5},
      {"10 % slower than the best", Case({0, 1.1, 1.0, 1.3}, {}), 2, 0.1, false, 1 / 1.1},
      {"a mode that breaks the job: break_slowdown", Case({0.5, 2, 2, 1}, {true, false, false, false}), 1, 3, true,
       0.5},
      {"a mode not measured: left out", Case({0, 2, 2, 1}, {}), 1, -1, false, 0},
  };
  std::vector<EvalCase> cases;
  EvalRun run;
  double sum = 0, log_oracle = 0, log_selected = 0;
  int scored = 0;
  for (const Row& r : rows) {
    cases.push_back(r.c);
    CaseOutcome o;
    o.decision.mode = r.selected;
    run.cases.push_back(o);
    if (r.regret < 0) continue;
    sum += r.regret, ++scored;
    const auto slow = CaseSlowdowns(r.c);
    log_oracle += std::log(slow[2]);
    log_selected += std::log(r.mode3_over_selected);
  }
  ScoreCosts(cases, 4, &run);
  CHECK(run.scored == scored);
  CHECK(run.broke == 1);
  CHECK(run.mean_regret == Approx(sum / scored));
  CHECK(run.max_regret == Approx(3));
  CHECK(run.speedup_oracle == Approx(std::exp(log_oracle / scored)));
  CHECK(run.speedup_selected == Approx(std::exp(log_selected / scored)));
  CHECK(run.speedup_share == Approx((run.speedup_selected - 1) / (run.speedup_oracle - 1)));
}

TEST_CASE("a case's slowdowns: over its best unbroken mode, 0 for broken and unmeasured", "[modeselect][eval]") {
  struct Row {
    const char* what;
    EvalCase c;
    std::array<double, 4> slowdown;
  };
  const Row rows[] = {
      {"the broken mode is fastest but not the best", Case({0.5, 2, 1, 4}, {true, false, false, false}), {0, 2, 1, 4}},
      {"a mode not measured", Case({0, 3, 1.5, 0}, {}), {0, 2, 1, 0}},
      {"nothing unbroken measured", Case({1, 0, 0, 0}, {true, false, false, false}), {0, 0, 0, 0}},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    const auto s = CaseSlowdowns(r.c);
    for (int m = 0; m < 4; ++m) CHECK(s[m] == Approx(r.slowdown[m]));
  }
}

}  // namespace
}  // namespace bb::modeselect
