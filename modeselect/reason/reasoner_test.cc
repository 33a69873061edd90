#include "modeselect/reason/reasoner.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <cmath>
#include <limits>

namespace bb::modeselect {
namespace {

Decision Sample(int mode, double confidence) {
  Decision d;
  d.mode = mode;
  d.confidence = confidence;
  d.io_topology = "N-N private";
  d.primary_reason = "every rank writes its own file";
  d.risk_analysis = {"a later step may read across nodes"};
  d.evidence = {{"job.sh", 12, "file.per_rank"}};
  d.scores = {0.9, 0.1, 0.5, 0.6};
  d.selected_by = "llm";
  d.elapsed_ms = 12.5;
  return d;
}

TEST_CASE("Finalize turns an error into the fallback and says why", "[modeselect][llm]") {
  const Decision f = Finalize(Status(ETIMEDOUT, "LLM at http://x: no answer"), 0.7);
  CHECK(f.mode == 3);
  CHECK(f.selected_by == "fallback");
  CHECK(f.confidence == 0);
  CHECK(f.primary_reason.find("no answer") != std::string::npos);
  CHECK(f.primary_reason.find("mode 3") != std::string::npos);
}

TEST_CASE("Finalize keeps a confident decision unchanged", "[modeselect][llm]") {
  for (double confidence : {0.7, 0.71, 1.0}) {
    const Decision f = Finalize(Sample(1, confidence), 0.7);
    CHECK(f.mode == 1);
    CHECK(f.selected_by == "llm");
    CHECK(f.confidence == confidence);
    CHECK(f.primary_reason == "every rank writes its own file");
  }
}

TEST_CASE("Finalize falls back below the minimum confidence, keeping the reasoner's work", "[modeselect][llm]") {
  const Decision f = Finalize(Sample(1, 0.3), 0.7);
  CHECK(f.mode == 3);
  CHECK(f.selected_by == "fallback");
  CHECK(f.primary_reason.find("mode 1") != std::string::npos);
  CHECK(f.primary_reason.find("0.30") != std::string::npos);
  CHECK(f.primary_reason.find("0.70") != std::string::npos);
  CHECK(f.primary_reason.find("every rank writes its own file") != std::string::npos);
  CHECK(f.scores == std::array<double, 4>{0.9, 0.1, 0.5, 0.6});
  REQUIRE(f.evidence.size() == 1);
  CHECK(f.evidence[0].line == 12);
  CHECK(f.risk_analysis == std::vector<std::string>{"a later step may read across nodes"});
  CHECK(f.io_topology == "N-N private");
  CHECK(f.elapsed_ms == 12.5);
}

TEST_CASE("Finalize refuses a mode outside 1..4 and a confidence that is not 0..1", "[modeselect][llm]") {
  struct Row {
    int mode;
    double confidence;
    const char* says;
  };
  const Row rows[] = {{0, 0.9, "mode 0"},
                      {5, 0.9, "mode 5"},
                      {7, 0.9, "mode 7"},
                      {-1, 0.9, "mode -1"},
                      {2, 1.5, "confidence"},
                      {2, -0.1, "confidence"},
                      {2, std::numeric_limits<double>::quiet_NaN(), "confidence"}};
  for (const Row& r : rows) {
    INFO("mode " << r.mode << " confidence " << r.confidence);
    const Decision f = Finalize(Sample(r.mode, r.confidence), 0.0);
    CHECK(f.mode == 3);
    CHECK(f.selected_by == "fallback");
    CHECK(f.primary_reason.find(r.says) != std::string::npos);
    CHECK(f.scores == std::array<double, 4>{0, 0, 0, 0});  // nothing of a broken decision kept
  }
}

}  // namespace
}  // namespace bb::modeselect
