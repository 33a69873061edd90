// The QoS policy file: parsing, and the errors that name the file, line and field.
#include "tools/config/qos_policy.h"

#include <catch2/catch.hpp>

namespace bb::config {
namespace {

using qos::Algorithm;

const char* kPolicy = R"(algorithm: psfa
interval_ms: 500
max_rate:
  metadata: 9000
  data: 300MiB
jobs:
  A: {metadata: 6000, data: 200MiB, weight: 2}
  B: {metadata: 6000}
  C: {metadata: 6000}
)";

TEST_CASE("policy files parse, and bad ones name the field and the line", "[config][qos]") {
  auto p = ParsePolicy(kPolicy, "policy.yaml");
  REQUIRE(p.has_value());
  CHECK(p->algorithm == Algorithm::kPsfa);
  CHECK(p->interval_ms == 500);
  CHECK(p->max_data == 300.0 * 1048576);
  CHECK(p->jobs.at("A").weight == 2);
  CHECK(p->jobs.at("A").data == 200.0 * 1048576);
  // Sizes read as in bbd.yaml: "2G" is 2 GiB in both.
  auto g = ParsePolicy("max_rate: {data: 2G}\n", "policy.yaml");
  REQUIRE(g.has_value());
  CHECK(g->max_data == static_cast<double>(2ULL << 30));
  struct Row {
    std::string text, error;
  };
  const Row rows[] = {
      {"algorithm: fifo\nmax_rate: {metadata: 1}\n", "policy.yaml:1: field 'algorithm'"},
      {"max_rate: {metadata: 1}\ninterval_ms: 5\n", "policy.yaml:2: field 'interval_ms' must be 10..60000"},
      {"max_rate: {metadata: -3}\n", "policy.yaml:1: field 'max_rate.metadata'"},
      {"max_rate: {meta: 3}\n", "unknown field 'max_rate.meta'"},
      {"max_rate: {data: 3XB}\n", "policy.yaml:1: field 'max_rate.data': '3XB' has an unknown unit"},
      {"max_rate: {metadata: 1}\njobs:\n  A: {metadata: 1, speed: 2}\n", "policy.yaml:3: unknown field 'jobs.A.speed'"},
      {"max_rate: {metadata: 1}\njobs:\n  A: {weight: 0}\n", "field 'jobs.A.weight' must be above 0"},
      {"algorithm: psfa\n", "field 'max_rate' is required"},
      {"max_rate: [1\n", "policy.yaml:"},
      {"colour: blue\nmax_rate: {metadata: 1}\n", "policy.yaml:1: unknown field 'colour'"},
      {"max_rate: {metadata: 1}\njobs:\n  A: {weight: 1}\n  A: {weight: 2}\n",
       "policy.yaml:4: field 'A' is given twice"},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    auto bad = ParsePolicy(r.text, "policy.yaml");
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().code() == EINVAL);
    CHECK_THAT(bad.error().message(), Catch::Contains(r.error));
  }
}

TEST_CASE("every algorithm of the table is named in a policy file", "[config][qos]") {
  for (const qos::AlgorithmInfo& a : qos::Algorithms()) {
    auto p = ParsePolicy("algorithm: " + std::string(a.name) + "\nmax_rate: {metadata: 1}\n", "p.yaml");
    REQUIRE(p.has_value());
    CHECK(p->algorithm == a.id);
  }
  CHECK_THAT(ParsePolicy("algorithm: fifo\nmax_rate: {metadata: 1}\n", "p.yaml").error().message(),
             Catch::Contains("must be static, priority, proportional or psfa"));
}

TEST_CASE("the example policy in configs/qos parses", "[config][qos]") {
  auto p = LoadPolicy(std::string(BB_SOURCE_DIR) + "/configs/qos/policy.yaml");
  REQUIRE(p.has_value());
  CHECK(p->algorithm == Algorithm::kPsfa);
  CHECK(p->jobs.size() == 3);
  CHECK(p->max_metadata == 110000);
  CHECK(LoadPolicy("/nonexistent/policy.yaml").error().code() == ENOENT);
}

}  // namespace
}  // namespace bb::config
