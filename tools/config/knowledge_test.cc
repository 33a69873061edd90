// The mode selector's knowledge base: the shipped files load, and bad ones name the file, line
// and field.
#include "tools/config/knowledge.h"

#include <catch2/catch.hpp>

namespace bb::config {
namespace {

const char* kModes = "min_confidence: 0.6\nmodes:\n  - mode: 1\n    name: node-local\n    summary: s\n";
const char* kPatterns = "patterns:\n  - id: p\n    description: d\n    modes: [1, 4]\n    why: w\n";
const char* kRules =
    "rules:\n  - id: r\n    any: [file.per_rank, \"profile.files_written >= 2\"]\n    votes: {1: 2, 4: 0.5}\n"
    "    excludes: [2]\n    pattern: p\n";

TEST_CASE("the shipped knowledge base loads, and every rule names real facts and signals", "[config][modeselect]") {
  auto kb = LoadKnowledgeBase(std::string(BB_SOURCE_DIR) + "/configs/modeselect");
  REQUIRE(kb.has_value());
  CHECK(kb->modes.size() == 4);
  CHECK(kb->patterns.size() >= 5);
  CHECK(kb->rules.size() >= 8);
  CHECK(kb->min_confidence == 0.7);
  for (const auto& r : kb->rules) {
    INFO(r.id);
    CHECK_FALSE((r.all.empty() && r.any.empty()));
    CHECK_FALSE(r.reason.empty());
  }
  CHECK(LoadKnowledgeBase("/nonexistent").error().code() == ENOENT);
}

TEST_CASE("a knowledge base in its parts parses into the structs", "[config][modeselect]") {
  auto kb = ParseKnowledgeBase(kModes, kPatterns, kRules, "kb/");
  REQUIRE(kb.has_value());
  CHECK(kb->min_confidence == 0.6);
  CHECK(kb->modes[0].name == "node-local");
  CHECK(kb->patterns[0].modes == std::vector<int>{1, 4});
  REQUIRE(kb->rules.size() == 1);
  CHECK(kb->rules[0].any.size() == 2);
  CHECK(kb->rules[0].votes[0] == 2);
  CHECK(kb->rules[0].votes[3] == 0.5);
  CHECK(kb->rules[0].excludes[1]);
}

TEST_CASE("bad knowledge-base files name the file, line and field", "[config][modeselect]") {
  struct Row {
    std::string modes, patterns, rules, want;
  };
  const Row rows[] = {
      {"min_confidence: 2\n", kPatterns, kRules, "kb/modes.yaml:1: field 'min_confidence' must be 0..1"},
      {"colour: red\n", kPatterns, kRules, "kb/modes.yaml:1: unknown field 'colour'"},
      {"modes:\n  - mode: 7\n", kPatterns, kRules, "kb/modes.yaml:2: field 'modes.mode' must be 1, 2, 3 or 4"},
      {kModes, "patterns:\n  - id: p\n    modes: [9]\n", kRules, "kb/patterns.yaml:3: field 'patterns.modes'"},
      {kModes, kPatterns, "rules:\n  - id: r\n    any: [file.per_rnak]\n",
       "kb/rules.yaml:3: field 'rules.any': condition 'file.per_rnak': 'file.per_rnak' is neither a fact nor a signal"},
      {kModes, kPatterns, "rules:\n  - id: r\n    any: [file.per_rank]\n  - id: r\n    any: [file.shared]\n",
       "kb/rules.yaml:4: rule id 'r' is used twice"},
      {kModes, kPatterns, "rules:\n  - id: r\n    any: [file.per_rank]\n    pattern: q\n",
       "rule 'r' cites the unknown pattern 'q'"},
      {kModes, kPatterns, "rules:\n  - id: r\n    votes: {1: 1}\n", "rule 'r' has no condition"},
      {kModes, kPatterns, "rules:\n  - id: r\n    any: [file.shared]\n    weight: 3\n",
       "kb/rules.yaml:4: unknown field 'rules.weight'"},
      {kModes, kPatterns, "rules:\n  - id: r\n    any: [file.shared]\n    votes: {5: 1}\n",
       "kb/rules.yaml:4: field 'rules.votes' must be 1, 2, 3 or 4"},
  };
  for (const Row& r : rows) {
    INFO(r.want);
    auto kb = ParseKnowledgeBase(r.modes, r.patterns, r.rules, "kb/");
    REQUIRE_FALSE(kb.has_value());
    CHECK(kb.error().code() == EINVAL);
    CHECK_THAT(kb.error().message(), Catch::Contains(r.want));
  }
}

}  // namespace
}  // namespace bb::config
