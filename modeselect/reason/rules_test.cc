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
              std::array<bool, 4> excludes = {}) {
  Rule r;
  r.id = id;
  r.reason = std::string("because ") + id;
  r.topology = std::string("topology of ") + id;
  for (const char* c : all) r.all.push_back(C(c));
  for (const char* c : any) r.any.push_back(C(c));
  r.votes = votes;
  r.excludes = excludes;
  r.risk = std::string("risk of ") + id;
  return r;
}

TEST_CASE("fired rules vote, the winner's margin gives the confidence, excluded modes drop out",
          "[modeselect][rules]") {
  KnowledgeBase kb;
  kb.rules = {MakeRule("private", {"file.per_rank", "profile.cross_node_files == 0"}, {}, {3, 0, 0, 1}),
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
  kb.rules = {MakeRule("even", {"file.per_rank"}, {}, {1, 0, 1, 0})};
  d = RulesReasoner().Decide(Sample(), kb);
  CHECK(d->mode == 3);
  CHECK(d->confidence == 0);
}

}  // namespace
}  // namespace bb::modeselect
