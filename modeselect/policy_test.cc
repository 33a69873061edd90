// The decision rule: the lowest expected slowdown among the modes the evidence allows, mode 3
// when the evidence conflicts, and the confidence it reports.
#include "modeselect/policy.h"

#include <catch2/catch.hpp>

namespace bb::modeselect {
namespace {

constexpr std::array<bool, 4> kAll = {true, true, true, true};
constexpr std::array<bool, 4> kNoLocal = {false, true, true, true};

struct Row {
  const char* what;
  std::array<double, 4> slowdown;
  std::array<bool, 4> allowed;
  std::array<double, 4> score;
  int rules_pick;
  std::vector<RuleFavourite> favourites;
  int static_reading, profile_reading;
  int mode, lowest;
  bool conflict;
};

TEST_CASE("the decision rule picks the lowest expected slowdown, mode 3 in a conflict", "[modeselect][policy]") {
  const Row rows[] = {
      {"the lowest expected slowdown wins",
       {2, 1.3, 1.2, 1.05},
       kNoLocal,
       {0, 0, 1, 2},
       4,
       {{"a", 4}},
       0,
       0,
       4,
       4,
       false},
      {"against the rules' pick when the corpus says so",
       {2, 1.02, 1.2, 1.15},
       kNoLocal,
       {0, 0, 1, 2},
       4,
       {{"a", 4}},
       0,
       0,
       2,
       2,
       false},
      {"a mode ruled out is never chosen, however fast",
       {1.0, 1.3, 1.2, 1.1},
       kNoLocal,
       {5, 0, 1, 2},
       4,
       {{"a", 1}},
       0,
       0,
       4,
       4,
       false},
      {"mode 1 when the evidence allows it",
       {1.0, 1.3, 1.2, 1.1},
       kAll,
       {5, 0, 1, 2},
       1,
       {{"a", 1}},
       0,
       0,
       1,
       1,
       false},
      {"mode 3 is always allowed",
       {1.5, 1.4, 1.2, 1.3},
       {false, true, false, true},
       {0, 1, 0, 1},
       2,
       {},
       0,
       0,
       3,
       3,
       false},
      {"within 1 % of mode 3 is even: mode 3 wins",
       {2, 1.3, 1.10, 1.095},
       kNoLocal,
       {0, 0, 1, 2},
       4,
       {{"a", 4}},
       0,
       0,
       3,
       3,
       false},
      {"even modes other than 3: the higher score",
       {2, 1.05, 1.2, 1.052},
       kNoLocal,
       {0, 1, 0.5, 2},
       4,
       {{"a", 4}},
       0,
       0,
       4,
       4,
       false},
      {"two rules favour 2 and 4 with no clear winner: conflict",
       {2, 1.0, 1.2, 1.05},
       kNoLocal,
       {0, 2, 1, 2},
       2,
       {{"meta", 2}, {"local", 4}},
       0,
       0,
       3,
       2,
       true},
      {"a clear winner is no conflict",
       {2, 1.0, 1.2, 1.05},
       kNoLocal,
       {0, 2.5, 1, 2},
       2,
       {{"meta", 2}, {"local", 4}},
       0,
       0,
       2,
       2,
       false},
      {"one rule voting for two modes is no conflict",
       {2, 1.0, 1.2, 1.05},
       kNoLocal,
       {0, 2, 1, 2},
       2,
       {{"meta", 2}},
       0,
       0,
       2,
       2,
       false},
      {"a close rival the evidence rules out is no conflict",
       {1.0, 1.0, 1.2, 1.05},
       kNoLocal,
       {2, 2, 1, 0},
       2,
       {{"meta", 2}, {"local", 1}},
       0,
       0,
       2,
       2,
       false},
      {"no conflict when the rules pick mode 3",
       {2, 1.1, 1.0, 1.1},
       kNoLocal,
       {0, 1, 1.2, 1},
       3,
       {{"meta", 2}, {"local", 4}},
       0,
       0,
       3,
       3,
       false},
      {"static and profile point to different modes: conflict",
       {2, 1.3, 1.2, 1.05},
       kNoLocal,
       {0, 1, 1, 2},
       4,
       {{"a", 4}},
       2,
       4,
       3,
       4,
       true},
      {"static reads mode 3, the profile 4: the profile's measurement stands",
       {2, 1.3, 1.2, 1.05},
       kNoLocal,
       {0, 1, 1, 2},
       4,
       {{"a", 4}},
       3,
       4,
       4,
       4,
       false},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    PolicyInput in;
    in.expected_slowdown = r.slowdown;
    in.allowed = r.allowed;
    in.score = r.score;
    in.rules_pick = r.rules_pick;
    in.favourites = r.favourites;
    in.static_reading = r.static_reading;
    in.profile_reading = r.profile_reading;
    const PolicyChoice c = ChooseMode(in, DecisionSettings{});
    CHECK(c.mode == r.mode);
    CHECK(c.lowest == r.lowest);
    CHECK(c.conflict == r.conflict);
    CHECK(c.why.empty() == !r.conflict);
  }
}

TEST_CASE("the conflict margin and the evenness are settings", "[modeselect][policy]") {
  PolicyInput in;
  in.allowed = kNoLocal;
  in.score = {0, 2, 1, 1.8};
  in.rules_pick = 2;
  in.favourites = {{"meta", 2}, {"local", 4}};
  in.expected_slowdown = {2, 1.0, 1.2, 1.02};
  DecisionSettings s;
  CHECK(ChooseMode(in, s).conflict);
  s.conflict_margin = 0.1;
  CHECK_FALSE(ChooseMode(in, s).conflict);
  CHECK(ChooseMode(in, s).mode == 2);
  s.even_within = 0.05;  // 1.0 and 1.02 are even now: the higher score (mode 2) still
  CHECK(ChooseMode(in, s).mode == 2);
  in.expected_slowdown = {2, 1.0, 1.04, 1.02};  // and mode 3 within 5 %: mode 3
  CHECK(ChooseMode(in, s).mode == 3);
}

Rule MakeRule(const char* id, std::array<double, 4> votes, bool clears = false) {
  Rule r;
  r.id = id;
  r.votes = votes;
  r.rules_out_cross_node = clears;
  return r;
}

RulesAnalysis Analysis(std::vector<const Rule*> fired, double prior3 = 0.5) {
  RulesAnalysis a;
  a.fired = std::move(fired);
  a.score = {0, 0, prior3, 0};
  a.allowed = {false, true, true, true};
  for (const Rule* r : a.fired) {
    for (int m = 0; m < 4; ++m) a.score[m] += r->votes[m];
    a.cross_node_ruled_out = a.cross_node_ruled_out || r->rules_out_cross_node;
    a.evidence_moved = true;
  }
  a.allowed[0] = a.cross_node_ruled_out;
  int best = 2;
  for (int m = 0; m < 4; ++m) {
    if (a.allowed[m] && a.score[m] > a.score[best]) best = m;
  }
  a.pick = best + 1;
  a.margin = 1;
  for (const Rule* r : a.fired) {
    if (r->votes[best] > 0 && (a.carrier == nullptr || r->votes[best] > a.carrier->votes[best])) a.carrier = r;
  }
  return a;
}

TEST_CASE("decided by the rules: estimates from the carrier's group, calibrated confidence", "[modeselect][policy]") {
  const Rule hybrid = MakeRule("hybrid", {0, 0, 0, 2});
  KnowledgeBase kb;
  Calibration cal;
  cal.jobs = 10;
  cal.source = "test corpus";
  SlowdownGroup g;
  g.rule = "hybrid";
  g.jobs = {"a", "b", "c", "d"};
  g.slowdown = {1, 1.2, 1.3, 1.0};
  g.ran = {0, 4, 4, 4};
  g.broke = {4, 0, 0, 0};
  g.right = {0, 1, 0, 4};
  cal.groups = {g};
  cal.confidence = {{0, 0.4, 10}, {0.8, 0.85, 20}};
  const RulesAnalysis a = Analysis({&hybrid});
  RulesDecision d = DecideByRules(a, nullptr, nullptr, cal, kb);
  CHECK(d.choice.mode == 4);
  CHECK(d.estimate[3].jobs == 4);
  CHECK(d.raw_confidence == Approx((4 + 1.0) / (4 + 2)));
  CHECK(d.confidence == 0.85);
  CHECK(d.own_confidence == 0.85);
  CHECK_FALSE(d.input.allowed[0]);

  // No calibration: the rules' raw confidence for their own pick.
  d = DecideByRules(a, nullptr, nullptr, Calibration{}, kb);
  CHECK(d.choice.mode == 4);
  CHECK(d.confidence == Approx(1 - std::exp(-1.0)));

  // Readings of each kind alone that disagree: mode 3, its own confidence beside it.
  const Rule meta = MakeRule("meta", {0, 2, 0, 0});
  const RulesAnalysis st = Analysis({&meta}), pr = Analysis({&hybrid});
  d = DecideByRules(a, &st, &pr, cal, kb);
  CHECK(d.choice.conflict);
  CHECK(d.choice.mode == 3);
  CHECK(d.choice.lowest == 4);
  CHECK(d.input.static_reading == 2);
  CHECK(d.input.profile_reading == 4);
  CHECK(d.raw_confidence == Approx((0 + 1.0) / (4 + 2)));
  CHECK(d.confidence == 0.4);
  CHECK(d.own_confidence == 0.85);
}

}  // namespace
}  // namespace bb::modeselect
