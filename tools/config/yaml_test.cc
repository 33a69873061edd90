#include "tools/config/yaml.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tools/config/daemon_config.h"
#include "tools/config/knowledge.h"
#include "tools/config/mode_file.h"
#include "tools/config/qos_policy.h"

namespace bb::config {
namespace {

// The "billion laughs" file: nine levels of ten aliases each, 10^9 scalars when walked.
std::string AliasBomb() {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  return text;
}

std::string DeepNesting(int levels) { return "mode: " + std::string(levels, '[') + std::string(levels, ']') + "\n"; }

std::string DeepBlockNesting(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += std::string(2 * i, ' ') + "k" + std::to_string(i) + ":\n";
  return text;
}

// Every YAML reader of the programs, by the name its file goes by.
const std::vector<std::pair<const char*, std::function<Status(const std::string&)>>> kReaders = {
    {"bbd.yaml", [](const std::string& t) { return ParseDaemonConfig(t, "bbd.yaml").status(); }},
    {"mode.yaml", [](const std::string& t) { return ParseModeFile(t, "mode.yaml").status(); }},
    {"policy.yaml", [](const std::string& t) { return ParsePolicy(t, "policy.yaml").status(); }},
    {"kb/modes.yaml", [](const std::string& t) { return ParseKnowledgeBase(t, t, t, "kb/").status(); }},
};

TEST_CASE("alias bombs and deep nesting are refused by every reader, naming the file and line, at once", "[yaml]") {
  const std::vector<std::pair<const char*, std::string>> bombs = {
      {"alias bomb", AliasBomb()},
      {"10,000 nested brackets", DeepNesting(10'000)},
      {"100 nested block mappings", DeepBlockNesting(100)},
  };
  for (const auto& [name, text] : bombs) {
    for (const auto& [file, read] : kReaders) {
      INFO(name << " read as " << file);
      auto start = std::chrono::steady_clock::now();
      Status s = read(text);
      auto took = std::chrono::steady_clock::now() - start;
      REQUIRE_FALSE(s.ok());
      CHECK(s.code() == EINVAL);
      CHECK(s.message().rfind(file, 0) == 0);
      CHECK(s.message().find(".yaml:") != std::string::npos);
      CHECK((s.message().find("nodes") != std::string::npos || s.message().find("nest") != std::string::npos));
      CHECK(took < std::chrono::seconds(1));
    }
  }
}

TEST_CASE("the bomb's error names the line where the count passed the bound", "[yaml]") {
  auto doc = ParseYaml(AliasBomb(), "bomb.yaml");
  REQUIRE_FALSE(doc.has_value());
  // Lines 1-4 expand to about 11,000 nodes; line 5's ten aliases of line 4 pass the bound.
  CHECK(doc.error().message().rfind("bomb.yaml:5: the document holds more than 100000 nodes", 0) == 0);
}

TEST_CASE("anchors and aliases within the bounds still parse", "[yaml]") {
  auto doc = ParseYaml("base: &b {x: 1, y: [1, 2]}\nother: *b\nthird: *b\n", "ok.yaml");
  REQUIRE(doc.has_value());
  CHECK((*doc)["third"]["y"][1].as<int>() == 2);
  // Nesting at the bound parses; one level more does not.
  CHECK(ParseYaml(std::string(kMaxYamlDepth, '[') + std::string(kMaxYamlDepth, ']'), "d.yaml").has_value());
  CHECK_FALSE(
      ParseYaml(std::string(kMaxYamlDepth + 1, '[') + std::string(kMaxYamlDepth + 1, ']'), "d.yaml").has_value());
}

TEST_CASE("depth counts through an alias", "[yaml]") {
  // An anchor 40 levels deep, repeated 40 levels down: 80 levels when walked.
  std::string deep = std::string(40, '[') + "x" + std::string(40, ']');
  std::string text = "a: &d " + deep + "\nb: " + std::string(40, '[') + "*d" + std::string(40, ']') + "\n";
  auto doc = ParseYaml(text, "alias.yaml");
  REQUIRE_FALSE(doc.has_value());
  CHECK(doc.error().message().find("alias.yaml:2: the document nests deeper than 64 levels") == 0);
}

}  // namespace
}  // namespace bb::config
