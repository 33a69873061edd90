// The rules reasoner: conditions in every form, rules firing, scores, exclusions, confidence,
// and what a decision cites.
#include "modeselect/reason/rules.h"

#include <catch2/catch.hpp>

namespace bb::modeselect {
namespace {

Evidence Sample() {
  Evidence e;
  e.have_static = true;
  e.statics.findings = {{"file.per_rank", "src/ckpt.c", 12, "snprintf(name, ..., rank)", 1},
                        {"access.small_writes", "src/ckpt.c", 20, "write(fd, rec, 64)", 64},
                        {"access.small_writes", "src/log.c", 8, "write(fd, line, 200)", 200}};
  e.have_profile = true;
  e.signals = {{"profile.cross_node_files", 0, "no file was used on another node"},
               {"profile.files_written", 8, "8 files written"}};
  return e;
}

Condition C(const char* text) {
  auto c = ParseCondition(text);
  REQUIRE(c.has_value());
  return *c;
}

TEST_CASE("conditions in every form hold as the knowledge base's README says", "[modeselect][rules]") {
  Evidence e = Sample();
  struct Row {
    const char* text;
    bool holds;
  };
  const Row rows[] = {
      {"file.per_rank", true},
      {"!file.per_rank", false},
      {"file.shared", false},
      {"!file.shared", true},
      {"count(access.small_writes) >= 2", true},
      {"count(access.small_writes) > 2", false},
      {"max(access.small_writes) == 200", true},
      {"max(file.shared) < 1", true},
      {"profile.files_written >= 8", true},
      {"profile.files_written > 8", false},
      {"profile.cross_node_files == 0", true},
      {"profile.cross_node_files", false},
      {"!profile.cross_node_files", true},
      {"profile.cross_node_dirs == 0", false},  // absent: no comparison holds
      {"!profile.cross_node_dirs", true},
      {"profile.files_written != 3", true},
      {"  profile.files_written   <=  8 ", true},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    CHECK(Evaluate(C(r.text), e) == r.holds);
  }
  struct Bad {
    const char* text;
    const char* want;
  };
  const Bad bad[] = {
      {"file.per_rnak", "neither a fact nor a signal"},
      {"profile.files_written >= many", "'many' is not a number"},
      {"file.per_rank >= 2", "compare a fact through count(file.per_rank)"},
      {"count(profile.files_written) > 1", "count() and max() take a fact"},
      {"", "neither a fact nor a signal"},
  };
  for (const Bad& b : bad) {
    INFO(b.text);
    auto c = ParseCondition(b.text);
    REQUIRE_FALSE(c.has_value());
    CHECK_THAT(c.error().message(), Catch::Contains(b.want));
  }
}

Rule MakeRule(const char* id, std::vector<const char*> all, std::vector<const char*> any, std::array<double, 4> votes,
              std::array<bool, 4> excludes = {}, bool rules_out_cross_node = false) {
  Rule r;
  r.id = id;
  r.reason = std::string("because ") + id;
  r.topology = std::string("topology of ") + id;
  for (const char* c : all) r.all.push_back(C(c));
  for (const char* c : any) r.any.push_back(C(c));
  r.votes = votes;
  r.excludes = excludes;
  r.risk = std::string("risk of ") + id;
  r.rules_out_cross_node = rules_out_cross_node;
  return r;
}

TEST_CASE("fired rules vote, the winner's margin gives the confidence, excluded modes drop out",
          "[modeselect][rules]") {
  KnowledgeBase kb;
  kb.rules = {MakeRule("private", {"file.per_rank", "profile.cross_node_files == 0"}, {}, {3, 0, 0, 1}, {}, true),
              MakeRule("never", {"file.shared"}, {}, {0, 9, 0, 0}),
              MakeRule("small", {}, {"file.append", "count(access.small_writes) >= 2"}, {0, 0, 0.5, 0})};
  RulesReasoner r;
  auto d = r.Decide(Sample(), kb);
  REQUIRE(d.has_value());
  CHECK(d->mode == 1);
  CHECK(d->rules_fired == std::vector<std::string>{"private", "small"});
  // Scores: mode 1: 3, mode 3: prior 0.5 + 0.5, mode 4: 1; margin 2.
  CHECK(d->confidence == Approx(1 - std::exp(-2.0)));
  CHECK(d->primary_reason == "because private");
  CHECK(d->io_topology == "topology of private");
  CHECK(d->scores[0] > d->scores[3]);
  CHECK(d->scores[0] + d->scores[1] + d->scores[2] + d->scores[3] == Approx(1));
  CHECK(d->risk_analysis == std::vector<std::string>{"risk of private", "risk of small"});
  bool cited_source = false, cited_signal = false;
  for (const auto& ev : d->evidence) {
    cited_source |= ev.file == "src/ckpt.c" && ev.line == 12;
    cited_signal |= ev.finding.rfind("profile.cross_node_files = 0", 0) == 0;
  }
  CHECK(cited_source);
  CHECK(cited_signal);
  // A rule ruling mode 1 out hands the decision to the next mode, whatever mode 1's score.
  kb.rules.push_back(MakeRule("cross", {"file.per_rank"}, {}, {0, 0, 0, 0}, {true, false, false, false}));
  d = r.Decide(Sample(), kb);
  CHECK(d->mode == 3);  // modes 3 and 4 are even (1 each): the default wins the tie
  CHECK(d->scores[0] == 0);
  CHECK(d->confidence == Approx(0));
}

TEST_CASE("with nothing firing the decision is mode 3 at confidence 0, mode 3 wins ties", "[modeselect][rules]") {
  KnowledgeBase kb;
  kb.rules = {MakeRule("never", {"file.shared"}, {}, {5, 0, 0, 0})};
  auto d = RulesReasoner().Decide(Sample(), kb);
  REQUIRE(d.has_value());
  CHECK(d->mode == 3);
  CHECK(d->confidence == 0);
  CHECK(d->rules_fired.empty());
  CHECK(d->io_topology == "unknown");
  kb.prior_mode3 = 0;
  kb.rules = {MakeRule("even", {"file.per_rank"}, {}, {0, 1, 1, 0})};
  d = RulesReasoner().Decide(Sample(), kb);
  CHECK(d->mode == 3);
  CHECK(d->confidence == 0);
}

TEST_CASE("node-local mode only when a fired rule rules out cross-node use and none excludes it",
          "[modeselect][rules]") {
  // The trap: node-local mode breaks a job whose files are used on other nodes, however many
  // votes it gets; the votes alone never choose it.
  struct Row {
    const char* what;
    bool clearing_rule_fires;
    bool excluding_rule_fires;
    int pick;
    bool mode1_allowed;
  };
  const Row rows[] = {
      {"votes for mode 1, nothing rules out cross-node use", false, false, 4, false},
      {"a rule rules out cross-node use", true, false, 1, true},
      {"a rule rules it out, another excludes mode 1", true, true, 4, false},
      {"only a rule excluding mode 1", false, true, 4, false},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    KnowledgeBase kb;
    kb.rules = {MakeRule("per-rank", {"file.per_rank"}, {}, {5, 0, 0, 1})};
    if (r.clearing_rule_fires) kb.rules.push_back(MakeRule("private", {"!profile.cross_node_files"}, {}, {}, {}, true));
    if (r.excluding_rule_fires)
      kb.rules.push_back(MakeRule("shared", {"file.per_rank"}, {}, {}, {true, false, false, false}));
    const RulesAnalysis a = AnalyzeRules(Sample(), kb);
    CHECK(a.pick == r.pick);
    CHECK(a.allowed[0] == r.mode1_allowed);
    CHECK(a.cross_node_ruled_out == r.mode1_allowed);
    CHECK(a.score[0] == 5);  // the votes stand; only the choice is barred
    auto d = RulesReasoner().Decide(Sample(), kb);
    REQUIRE(d.has_value());
    CHECK(d->mode == r.pick);
    CHECK((d->scores[0] == 0) == !r.mode1_allowed);
  }
}

TEST_CASE("the analysis names the pick's carrier and its margin", "[modeselect][rules]") {
  KnowledgeBase kb;
  kb.rules = {MakeRule("weak", {"file.per_rank"}, {}, {0, 0, 0, 1}),
              MakeRule("strong", {"file.per_rank"}, {}, {0, 0, 0, 2}),
              MakeRule("off", {"file.shared"}, {}, {0, 0, 0, 9})};
  const RulesAnalysis a = AnalyzeRules(Sample(), kb);
  CHECK(a.pick == 4);
  REQUIRE(a.carrier != nullptr);
  CHECK(a.carrier->id == "strong");
  CHECK(a.margin == Approx(3 - 0.5));
  CHECK(a.evidence_moved);
  CHECK(a.fired.size() == 2);
  kb.rules = {MakeRule("silent", {"file.per_rank"}, {}, {})};
  const RulesAnalysis quiet = AnalyzeRules(Sample(), kb);
  CHECK(quiet.pick == 3);
  CHECK(quiet.carrier == nullptr);
  CHECK_FALSE(quiet.evidence_moved);
}

}  // namespace
}  // namespace bb::modeselect
