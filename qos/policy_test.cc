#include "qos/policy.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
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

TEST_CASE("PSFA: no negative rate for a job with no demand, idle share flows to busy jobs", "[qos]") {
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
  // Jobs 1 and 2 used all they had: they are short, so the rest is theirs.
  CHECK(after[1] + after[2] == Approx(110000 - 12500).epsilon(0.001));
  CheckInvariants(after, 110000);
  // A job that leaves its rate unused gets no leftover beyond its usage plus margin.
  std::vector<JobLoad> mixed = {{50000, 1, 10000}, {50000, 1, 20000}};
  auto r2 = PsfaRates(mixed, 110000, {40000, 20000});
  CHECK(r2[0] <= 10000 + 0.25 * 40000 + 1e-6);  // used 10k of 40k: under-using
  CHECK(r2[1] == Approx(50000));                // used all 20k it had: short, up to its demand
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
  // Four nodes with usage 300, 100, 0 and 600 of a total 1000.
  auto split = [](double rate, const std::vector<double>& usage, double even) {
    double total = 0;
    for (double u : usage) total += u;
    std::vector<double> out;
    for (double u : usage) out.push_back(ShareOf(rate, u, total, static_cast<double>(usage.size()), even));
    return out;
  };
  CHECK(split(1000, {300, 100, 0, 600}, 0) == std::vector<double>{300, 100, 0, 600});
  CHECK(split(1000, {0, 0}, 0) == std::vector<double>{500, 500});
  CHECK(split(-5, {1, 1}, 0) == std::vector<double>{0, 0});
  // 10 % evenly over the 4 nodes (25 each), 90 % by usage.
  auto s = split(1000, {300, 100, 0, 600}, 0.1);
  CHECK(s[0] == Approx(25 + 270));
  CHECK(s[1] == Approx(25 + 90));
  CHECK(s[2] == Approx(25));
  CHECK(s[3] == Approx(25 + 540));
  // Garbage in (a usage above the total, NaN, a node count of 0) gives a share within the rate.
  CHECK(ShareOf(1000, 5000, 1000, 4, 0.1) == Approx(25 + 900));
  CHECK(ShareOf(1000, std::nan(""), 1000, 4, 0.1) == Approx(25));
  CHECK(ShareOf(1000, 0, 0, 0, 0.1) == Approx(1000));
}

}  // namespace
}  // namespace bb::qos

namespace bb::qos {
namespace {

// The paper's three scenarios, run for every policy as a 1-second control loop over 12
// minutes: job k joins at minute 3k, offers `load` and asks for `demand`; each cycle it uses
// min(load, rate). The invariants are checked every cycle.
struct Scenario {
  const char* name;
  std::array<double, 4> load, demand, weight;
};

std::vector<double> RunScenario(const Scenario& s, const std::string& policy) {
  const double max_rate = 110000;
  std::vector<JobLoad> jobs;
  std::vector<double> rates, prev;
  for (int t = 0; t < 12 * 60; ++t) {
    if (t % 180 == 0 && jobs.size() < 4) {
      size_t k = jobs.size();
      jobs.push_back({s.demand[k], s.weight[k], 0});
      prev.push_back(0);
    }
    if (policy == "static")
      rates = StaticRates(jobs, max_rate);
    else if (policy == "priority")
      rates = PriorityRates(jobs, max_rate);
    else if (policy == "proportional")
      rates = ProportionalRates(jobs, max_rate);
    else
      rates = PsfaRates(jobs, max_rate, prev);
    CheckInvariants(rates, max_rate);
    if (policy == "psfa") {
      // No false allocation: a job below its demand never holds more than its usage plus the
      // growth margin while another job is short of its demand.
      bool someone_short = false;
      for (size_t j = 0; j < jobs.size(); ++j) someone_short |= rates[j] + 1 < std::min(jobs[j].demand, s.load[j]);
      for (size_t j = 0; j < jobs.size() && someone_short; ++j) {
        bool underused = prev[j] > 0 && jobs[j].usage < 0.9 * prev[j];  // it left some of its rate unused
        if (underused && jobs[j].usage <= 0.95 * jobs[j].demand) {
          CHECK(rates[j] <= jobs[j].usage + 0.25 * (jobs[j].demand - jobs[j].usage) + 1);
        }
      }
    }
    for (size_t j = 0; j < jobs.size(); ++j) jobs[j].usage = std::min(s.load[j], rates[j]);
    prev = rates;
  }
  return rates;
}

TEST_CASE("the paper's three scenarios under every policy", "[qos]") {
  const Scenario same_load_priorities{
      "same load, priorities 4:3:2:1", {40000, 40000, 40000, 40000}, {40000, 40000, 40000, 40000}, {4, 3, 2, 1}};
  const Scenario proportional_limits{"loads 50/30/20/10k, limits in proportion",
                                     {50000, 30000, 20000, 10000},
                                     {50000, 30000, 20000, 10000},
                                     {1, 1, 1, 1}};
  const Scenario swapped_limits{"the same with A's and B's limits swapped",
                                {50000, 30000, 20000, 10000},
                                {30000, 50000, 20000, 10000},
                                {1, 1, 1, 1}};
  for (const char* policy : {"static", "priority", "proportional", "psfa"}) {
    INFO(policy);
    // Same load, different priorities: only the priority policy orders the jobs by weight.
    auto r = RunScenario(same_load_priorities, policy);
    double sum = r[0] + r[1] + r[2] + r[3];
    CHECK(sum == Approx(110000).epsilon(0.01));
    if (std::string(policy) == "priority") {
      CHECK(r[0] >= r[1]);
      CHECK(r[1] > r[2]);
      CHECK(r[2] > r[3]);
      // Weights 4:3:2:1 of 110k, but A is capped at its 40k demand: its 4k more go to B, C, D
      // by weight (3:2:1).
      CHECK(r[0] == Approx(40000));
      CHECK(r[3] == Approx(11000 + 4000.0 / 6).epsilon(0.01));
    } else {
      for (double x : r) CHECK(x == Approx(110000.0 / 4).epsilon(0.05));
    }
    // Limits in proportion to the loads, adding up to Max_R: every job gets its limit.
    r = RunScenario(proportional_limits, policy);
    if (std::string(policy) != "priority") {
      CHECK(r[0] == Approx(50000).epsilon(0.02));
      CHECK(r[3] == Approx(10000).epsilon(0.02));
    }
    // Swapped limits: A is held at its 30k; B asks 50k but uses 30k. Static keeps B's 50k
    // reserved; PSFA gives B only its usage plus the growth margin.
    r = RunScenario(swapped_limits, policy);
    CHECK(r[0] <= 30000 + 1);
    if (std::string(policy) == "static") CHECK(r[1] == Approx(50000).epsilon(0.01));
    if (std::string(policy) == "psfa") CHECK(r[1] <= 30000 + 0.25 * 20000 + 1);
  }
}

}  // namespace
}  // namespace bb::qos
