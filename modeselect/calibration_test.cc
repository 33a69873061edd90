// The calibration: slowdown estimates shrunk towards the rules' ranking and the isotonic
// confidence map.
#include "modeselect/calibration.h"

#include <catch2/catch.hpp>
#include <cmath>

namespace bb::modeselect {
namespace {

SlowdownGroup Group(const char* rule, std::array<double, 4> slowdown, std::array<int, 4> ran, std::array<int, 4> broke,
                    std::array<int, 4> right) {
  SlowdownGroup g;
  g.rule = rule;
  g.slowdown = slowdown;
  g.ran = ran;
  g.broke = broke;
  g.right = right;
  return g;
}

TEST_CASE("estimates: the carrier's jobs and the rules' ranking as prior_jobs more", "[modeselect][calibration]") {
  Calibration c;
  c.jobs = 9;
  c.groups = {Group("r", {1.0, 1.5, 1.2, 1.0}, {2, 4, 4, 4}, {2, 0, 0, 0}, {2, 0, 1, 4})};
  DecisionSettings s;  // prior_jobs 2, prior_slowdown 1.1, break_slowdown 4
  struct Row {
    const char* what;
    const char* carrier;
    int pick;
    int mode;
    double slowdown;
    double right;
    int jobs;
  };
  const double l11 = std::log(1.1);
  const Row rows[] = {
      {"the pick: its jobs' geometric mean, shrunk to 1", "r", 4, 4, std::exp((4 * 0.0 + 0) / 6), 5.0 / 6, 4},
      {"another mode: shrunk towards prior_slowdown", "r", 4, 3, std::exp((4 * std::log(1.2) + 2 * l11) / 6), 2.0 / 6,
       4},
      {"a broken job counts as break_slowdown", "r", 4, 1, std::exp((2 * std::log(4.0) + 2 * l11) / 6), 3.0 / 6, 4},
      {"no group: the rules' ranking alone, the pick", "unknown", 2, 2, 1.0, 0.5, 0},
      {"no group: the rules' ranking alone, another", "unknown", 2, 3, 1.1, 0.5, 0},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    const auto e = EstimateModes(c, r.carrier, r.pick, s);
    CHECK(e[r.mode - 1].slowdown == Approx(r.slowdown));
    CHECK(e[r.mode - 1].right == Approx(r.right));
    CHECK(e[r.mode - 1].jobs == r.jobs);
  }
}

TEST_CASE("the confidence map is increasing, smoothed, and read by step", "[modeselect][calibration]") {
  // Raw 0.3: 1 of 4 right; raw 0.6: 3 of 4; raw 0.9: 3 of 4 (pooled with 0.6: not above it).
  std::vector<std::pair<double, bool>> points = {{0.3, false}, {0.3, false}, {0.3, true},  {0.3, false},
                                                 {0.6, true},  {0.6, true},  {0.6, false}, {0.6, true},
                                                 {0.9, true},  {0.9, false}, {0.9, true},  {0.9, true}};
  const auto steps = FitConfidence(points);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].raw == 0.3);
  CHECK(steps[0].right == Approx(2.0 / 6));
  CHECK(steps[0].decisions == 4);
  CHECK(steps[1].raw == 0.6);
  CHECK(steps[1].right == Approx(7.0 / 10));
  CHECK(steps[1].decisions == 8);
  // A lone decision, right, after a larger step: 2/3 is below 9/12, so they pool.
  const auto pooled = FitConfidence({{0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, true},
                                     {0.5, false},
                                     {0.9, true}});
  REQUIRE(pooled.size() == 1);
  CHECK(pooled[0].right == Approx(11.0 / 13));
  CHECK(FitConfidence({}).empty());

  Calibration c;
  c.jobs = 3;
  c.confidence = steps;
  struct Row {
    double raw, calibrated;
  };
  for (const Row& r : {Row{0.1, 2.0 / 6}, Row{0.3, 2.0 / 6}, Row{0.59, 2.0 / 6}, Row{0.6, 0.7}, Row{1.0, 0.7}}) {
    INFO(r.raw);
    CHECK(CalibratedConfidence(c, r.raw) == Approx(r.calibrated));
  }
  CHECK(CalibratedConfidence(Calibration{}, 0.42) == 0.42);
  CHECK(ConfidenceMeaning(Calibration{}).find("not calibrated") != std::string::npos);
  c.source = "3 jobs of a test corpus";
  CHECK(ConfidenceMeaning(c).find("3 jobs of a test corpus") != std::string::npos);
}

}  // namespace
}  // namespace bb::modeselect
