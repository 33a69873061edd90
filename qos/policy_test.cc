#include "qos/policy.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <random>

namespace bb::qos {
namespace {

double Sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

void CheckInvariants(const std::vector<double>& rates, double max_rate) {
  for (double r : rates) {
    CHECK(r >= 0);
    CHECK(std::isfinite(r));
  }
  CHECK(Sum(rates) <= max_rate * (1 + 1e-9) + 1e-9);
}

TEST_CASE("static: limits as configured, scaled down together when too many", "[qos]") {
  auto r = StaticRates({{20000}, {30000}}, 110000);
  CHECK(r == std::vector<double>{20000, 30000});
  r = StaticRates({{100000}, {120000}}, 110000);
  CHECK(r[0] == Approx(50000));
  CHECK(r[1] == Approx(60000));
}

TEST_CASE("priority: shares by weight, capped by demand, the rest shared again", "[qos]") {
  auto r = PriorityRates({{1e9, 1}, {1e9, 2}, {1e9, 1}, {1e9, 4}}, 80000);
  CHECK(r[0] == Approx(10000));
  CHECK(r[1] == Approx(20000));
  CHECK(r[3] == Approx(40000));
  r = PriorityRates({{5000, 4}, {1e9, 1}, {1e9, 1}}, 100000);  // job 0 needs only 5000
  CHECK(r[0] == Approx(5000));
  CHECK(r[1] == Approx(47500));
  CHECK(r[2] == Approx(47500));
}

TEST_CASE("proportional sharing: max-min fair, leftover redistributed", "[qos]") {
  auto r = ProportionalRates({{10000}, {50000}, {80000}}, 110000);
  CHECK(r[0] == Approx(10000));
  CHECK(r[1] == Approx(50000));
  CHECK(r[2] == Approx(50000));
  r = ProportionalRates({{10000}, {20000}}, 110000);  // everyone satisfied, 80000 left
  CHECK(r[0] == Approx(50000));
  CHECK(r[1] == Approx(60000));
}

TEST_CASE("PSFA: no negative rate for a job with no demand; idle share flows to busy jobs",
          "[qos]") {
  // The reference implementation gives a job with no demand -1.
  auto r = PsfaRates({{0, 1, 0}, {60000, 1, 60000}}, 110000, {});
  CHECK(r[0] == 0);
  CHECK(r[1] == Approx(60000));
  // Job 0 goes idle: its rate shrinks to usage + a quarter of its gap; the busy ones get the rest.
  std::vector<JobLoad> jobs = {{50000, 1, 50000}, {50000, 1, 50000}, {50000, 1, 50000}};
  auto before = PsfaRates(jobs, 110000, {});
  CheckInvariants(before, 110000);
  CHECK(before[0] == Approx(110000.0 / 3).epsilon(0.01));
  jobs[0].usage = 0;
  auto after = PsfaRates(jobs, 110000, before);
  CHECK(after[0] == Approx(12500));  // 0 + 0.25 * 50000: the growth margin, no more
  CHECK(after[1] + after[2] == Approx(110000 - 12500).epsilon(0.001));
  CheckInvariants(after, 110000);
}

TEST_CASE("PSFA: the paper's scenario of four jobs joining three minutes apart", "[qos]") {
  // Max_R = 110 kops/s, a 1-second control loop; job k joins at minute 3k with demand 40k and
  // uses what it is given (up to its demand). The invariants hold every cycle; once all four
  // run, each converges to its fair share.
  const double max_rate = 110000;
  std::vector<double> prev;
  std::vector<JobLoad> jobs;
  for (int t = 0; t < 12 * 60; ++t) {
    if (t % 180 == 0 && jobs.size() < 4) {
      jobs.push_back({40000, 1, 0});
      prev.push_back(0);
    }
    auto rates = PsfaRates(jobs, max_rate, prev);
    CheckInvariants(rates, max_rate);
    for (size_t j = 0; j < jobs.size(); ++j) jobs[j].usage = std::min(jobs[j].demand, rates[j]);
    prev = rates;
  }
  REQUIRE(jobs.size() == 4);
  for (double r : prev) CHECK(r == Approx(110000.0 / 4).epsilon(0.02));
}

TEST_CASE("every policy keeps its invariants on random input", "[qos]") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> any(-1e5, 2e5);
  for (int round = 0; round < 2000; ++round) {
    std::vector<JobLoad> jobs(1 + rng() % 8);
    for (auto& j : jobs) j = {any(rng), std::abs(any(rng)) / 1e4, any(rng)};
    double max_rate = std::abs(any(rng));
    std::vector<double> prev(jobs.size());
    for (auto& p : prev) p = any(rng);
    CheckInvariants(StaticRates(jobs, max_rate), max_rate);
    CheckInvariants(PriorityRates(jobs, max_rate), max_rate);
    CheckInvariants(ProportionalRates(jobs, max_rate), max_rate);
    CheckInvariants(PsfaRates(jobs, max_rate, prev), max_rate);
  }
}

TEST_CASE("a job's rate is split over its nodes by where its load is", "[qos]") {
  auto s = SplitByUsage(1000, {300, 100, 0, 600});
  CHECK(s == std::vector<double>{300, 100, 0, 600});
  s = SplitByUsage(1000, {0, 0});
  CHECK(s == std::vector<double>{500, 500});
  CHECK(SplitByUsage(-5, {1, 1}) == std::vector<double>{0, 0});
}

}  // namespace
}  // namespace bb::qos
