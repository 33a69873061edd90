// The knowledge base's calibration.yaml: what bb-modeselect calibrate writes reads back the same,
// and a damaged file names the file, line and field.
#include "tools/config/calibration_file.h"

#include <catch2/catch.hpp>

#include "modeselect/calibration.h"

namespace bb::config {
namespace {

modeselect::Calibration Sample() {
  modeselect::Calibration c;
  c.source = "3 jobs of a corpus, labels of today";
  c.jobs = 3;
  modeselect::SlowdownGroup g;
  g.rule = "profile-node-private";
  g.jobs = {"a", "b"};
  g.slowdown = {1.0, 1.5, 1.6, 1.125};
  g.ran = {1, 2, 2, 2};
  g.broke = {1, 0, 0, 0};
  g.right = {1, 0, 0, 1};
  modeselect::SlowdownGroup none;  // mode 3 by default
  none.jobs = {"c"};
  none.slowdown = {1, 1, 1, 1};
  c.groups = {g, none};
  c.confidence = {{0.5, 0.6667, 4}, {0.8, 0.875, 6}};
  return c;
}

TEST_CASE("a calibration written reads back the same", "[config][modeselect]") {
  const std::string text = FormatCalibration(Sample(), "# generated\n");
  CHECK(text.rfind("# generated\n", 0) == 0);
  auto back = ParseCalibration(text, "kb/calibration.yaml");
  REQUIRE(back.has_value());
  CHECK(back->source == Sample().source);
  CHECK(modeselect::SameCalibration(*back, Sample()));
  CHECK(back->groups[1].rule.empty());
  CHECK(back->groups[0].jobs == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a damaged calibration names the file, line and field", "[config][modeselect]") {
  struct Row {
    std::string text, want;
  };
  const std::string head = "jobs: 3\ngroups:\n  - rule: r\n";
  const Row rows[] = {
      {"colour: red\n", "kb/calibration.yaml:1: unknown field 'colour'"},
      {head + "    ran: {7: 1}\n", "kb/calibration.yaml:4: field 'groups.ran' must map 1, 2, 3 or 4"},
      {head + "    ran: {1: 4}\n", "kb/calibration.yaml:4: field 'groups.ran' must be 0..3 jobs"},
      {head + "    broke: {1: 1.5}\n", "kb/calibration.yaml:4: field 'groups.broke' must be a whole number"},
      {head + "    slowdown: {1: fast}\n", "kb/calibration.yaml:4: field 'groups.slowdown' must be a number"},
      {head + "    jobs: a\n", "kb/calibration.yaml:4: field 'groups.jobs' must be a list"},
      {head + "    speed: 1\n", "kb/calibration.yaml:4: unknown field 'groups.speed'"},
      {"jobs: 3\nconfidence:\n  - {raw: 0.5, right: 1.5}\n",
       "kb/calibration.yaml:3: field 'confidence.right' must be 0..1"},
      {"jobs: 3\nconfidence:\n  - {raw: 0.5, right: 0.5}\n  - {raw: 0.4, right: 0.6}\n",
       "kb/calibration.yaml:4: field 'confidence.raw' must ascend"},
      {"jobs: many\n", "kb/calibration.yaml:1: field 'jobs' must be an integer"},
  };
  for (const Row& r : rows) {
    INFO(r.want);
    auto c = ParseCalibration(r.text, "kb/calibration.yaml");
    REQUIRE_FALSE(c.has_value());
    CHECK(c.error().code() == EINVAL);
    CHECK_THAT(c.error().message(), Catch::Contains(r.want));
  }
}

}  // namespace
}  // namespace bb::config
