// The controller's policy file, framing and control cycle (pure; the network side is tested
// through the real programs in test/qos.sh).
#include "qos/controller.h"

#include <catch2/catch.hpp>

namespace bb::qos {
namespace {

// algorithm psfa, interval 500 ms, Max_R 9000 op/s and 300 MiB/s; A {6000 op/s, 200 MiB/s,
// weight 2}, B and C {6000 op/s}.
Policy TestPolicy() {
  Policy p;
  p.algorithm = Algorithm::kPsfa;
  p.interval_ms = 500;
  p.max_metadata = 9000;
  p.max_data = 300.0 * 1048576;
  p.jobs["A"] = {6000, 200.0 * 1048576, 2};
  p.jobs["B"] = {6000, 0, 1};
  p.jobs["C"] = {6000, 0, 1};
  return p;
}

TEST_CASE("reports: usage is read per job and class, anything else is refused with the reason", "[qos][controller]") {
  auto u = ParseUsage(nlohmann::json::parse(R"({"A": {"metadata": 120.5, "data": 4096}, "B": {"data": 7}, "C": {}})"));
  REQUIRE(u.has_value());
  CHECK(u->at("A") == std::pair{120.5, 4096.0});
  CHECK(u->at("B") == std::pair{0.0, 7.0});
  CHECK(u->at("C") == std::pair{0.0, 0.0});
  const std::pair<const char*, const char*> bad[] = {
      {R"([1, 2])", "report without a usage object"},
      {R"({"A": 3})", "usage of job A is not an object"},
      {R"({"A": {"metadata": "lots"}})", "usage of job A: 'metadata' must be a number >= 0"},
      {R"({"A": {"data": -1}})", "usage of job A: 'data' must be a number >= 0"},
      {R"({"A": {"data": null}})", "usage of job A: 'data' must be a number >= 0"},
  };
  for (const auto& [text, why] : bad) {
    INFO(text);
    auto r = ParseUsage(nlohmann::json::parse(text));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == EPROTO);
    CHECK_THAT(r.error().message(), Catch::Contains(why));
  }
}

TEST_CASE("messages are framed with a big-endian length and must be JSON objects with a type", "[qos][controller]") {
  std::string f = Frame({{"type", "hello"}, {"node", "n1"}});
  CHECK(FrameLength(f.data()) == f.size() - 4);
  CHECK(static_cast<uint8_t>(f[0]) == 0);  // big-endian: the high byte first
  auto m = ParseMessage(f.substr(4));
  REQUIRE(m.has_value());
  CHECK((*m)["node"] == "n1");
  // Popping: nothing until a message is complete, then exactly it; an oversized header fails.
  std::string in = f.substr(0, 7);
  CHECK_FALSE(PopMessage(&in)->has_value());
  in = f + f.substr(0, 3);
  auto body = PopMessage(&in);
  REQUIRE(body.has_value());
  REQUIRE(body->has_value());
  CHECK(**body == f.substr(4));
  CHECK(in == f.substr(0, 3));
  std::string huge = "\x7f\xff\xff\xffx";
  CHECK(PopMessage(&huge).error().code() == EPROTO);
  CHECK(ParseMessage("[1,2]").error().code() == EPROTO);
  CHECK(ParseMessage("{\"node\":1}").error().code() == EPROTO);
  CHECK(ParseMessage("\x01\x02garbage").error().code() == EPROTO);
}

TEST_CASE("a control cycle keeps the cluster under Max_R and splits rates by where the load is", "[qos][controller]") {
  Policy p = TestPolicy();
  // What each node would do unthrottled: A and B busy on two nodes, C idle.
  const std::map<std::string, NodeUsage> load = {
      {"n0", {{"A", {3000, 50e6}}, {"B", {1000, 0}}}},
      {"n1", {{"A", {1000, 50e6}}, {"B", {2500, 0}}}},
  };
  std::map<std::string, NodeUsage> usage = load;
  CycleResult prev;
  const CycleResult* last = nullptr;
  for (int cycle = 0; cycle < 10; ++cycle) {
    CycleResult r = ComputeCycle(p, usage, last);
    double sum = 0;
    for (const auto& [job, s] : r.jobs) {
      CHECK(s.rate[0] >= 0);
      sum += s.rate[0];
      // The nodes' shares add up to the job's rate.
      double split = 0;
      for (const auto& node : r.nodes) split += r.Rate(node, job).first;
      CHECK(split == Approx(s.rate[0]).epsilon(1e-9));
    }
    CHECK(sum <= 9000 * 1.000001);
    // Node n0 carries 3/4 of A's metadata load, so it gets most of A's rate.
    CHECK(r.Rate("n0", "A").first > 1.5 * r.Rate("n1", "A").first);
    prev = r;
    last = &prev;
    // Each job on each node uses what it was given, up to its load there.
    for (auto& [node, u] : usage) {
      for (auto& [job, v] : u) v.first = std::min(load.at(node).at(job).first, r.Rate(node, job).first);
    }
  }
  // C is idle, so after a few cycles nearly all of Max_R is with A and B.
  CHECK(prev.jobs["A"].rate[0] + prev.jobs["B"].rate[0] > 0.8 * 9000);
  CHECK(prev.jobs["C"].rate[0] < 0.2 * 9000);
  // Data: only A has a data demand.
  CHECK(prev.jobs["A"].rate[1] <= 300.0 * 1048576 * 1.000001);
  CHECK(prev.jobs["B"].rate[1] == 0);
}

TEST_CASE("every algorithm of the controller keeps the sum at or under Max_R", "[qos][controller]") {
  for (const AlgorithmInfo& algo : Algorithms()) {
    INFO(algo.name);
    Policy p = TestPolicy();
    p.algorithm = algo.id;
    std::map<std::string, NodeUsage> usage = {{"n0", {{"A", {9000, 1e9}}, {"B", {9000, 0}}, {"C", {9000, 0}}}}};
    CycleResult r = ComputeCycle(p, usage, nullptr);
    double sum = 0;
    for (const auto& [job, s] : r.jobs) sum += s.rate[0];
    CHECK(sum <= 9000 * 1.000001);
    CHECK(sum > 0);
  }
}

TEST_CASE("one shares message gives every daemon the rate the cycle computed for its node", "[qos][controller]") {
  std::map<std::string, NodeUsage> usage;
  usage["n0"]["A"] = {3000, 100.0 * 1048576};
  usage["n1"]["A"] = {1000, 0};
  usage["n1"]["B"] = {2500, 0};
  usage["n2"]["C"] = {10, 0};
  CycleResult r = ComputeCycle(TestPolicy(), usage, nullptr);
  auto msg = nlohmann::json::parse(SharesBody(r, 500));
  CHECK(msg["type"] == "shares");
  CHECK(msg["interval_ms"] == 500);
  CHECK(msg["nodes"] == 3);
  CHECK_FALSE(msg["jobs"]["B"].contains("data"));  // no demand: not limited
  for (const auto& [node, u] : usage) {
    auto limits = LimitsFromShares(msg, &u);
    REQUIRE(limits.has_value());
    for (const std::string job : {"A", "B", "C"}) {
      INFO(node << " " << job);
      auto want = r.Rate(node, job);
      CHECK(limits->at(job).first.value() == Approx(want.first));
      CHECK(limits->at(job).second.has_value() == (job == "A"));
      if (job == "A") CHECK(limits->at(job).second.value() == Approx(want.second));
    }
  }
  // A daemon that reported nothing this cycle (it connected meanwhile) takes an even share.
  auto fresh = LimitsFromShares(msg, nullptr);
  REQUIRE(fresh.has_value());
  CHECK(fresh->at("A").first.value() == Approx(r.jobs.at("A").rate[0] / 3));
  // The message is the same for all, whatever the number of nodes: its size is per job.
  for (int n = 3; n < 1000; ++n) usage["x" + std::to_string(n)]["A"] = {1, 0};
  CHECK(SharesBody(ComputeCycle(TestPolicy(), usage, nullptr), 500).size() < 2 * SharesBody(r, 500).size());
}

TEST_CASE("a malformed shares message is refused with the reason", "[qos][controller]") {
  NodeUsage none;
  const std::pair<const char*, const char*> bad[] = {
      {R"({"type": "shares"})", "without a jobs object"},
      {R"({"type": "shares", "jobs": {}, "even_share": 0.05})", "'nodes'"},
      {R"({"type": "shares", "jobs": {"A": 1}, "nodes": 2, "even_share": 0.05})", "job A is not an object"},
      {R"({"type": "shares", "jobs": {"A": {"metadata": 5}}, "nodes": 2, "even_share": 0.05})", "not an object"},
      {R"({"type": "shares", "jobs": {"A": {"metadata": {"rate": -1, "usage": 0}}}, "nodes": 2, "even_share": 0})",
       "'rate'"},
      {R"({"type": "shares", "jobs": {"A": {"data": {"rate": 1}}}, "nodes": 2, "even_share": 0})", "'usage'"},
  };
  for (const auto& [text, why] : bad) {
    INFO(text);
    auto r = LimitsFromShares(nlohmann::json::parse(text), &none);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == EPROTO);
    CHECK_THAT(r.error().message(), Catch::Contains(why));
  }
}

}  // namespace
}  // namespace bb::qos
