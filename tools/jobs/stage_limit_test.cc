// Staging within Slurm's Prolog/Epilog time limit: the limit read from scontrol, the margin, and
// the stage-in that would not fit refused before it starts.
#include "tools/jobs/stage_limit.h"

#include <catch2/catch.hpp>

namespace bb::jobs {
namespace {

TEST_CASE("PrologEpilogTimeout is read from scontrol show config", "[stage_limit]") {
  CHECK(PrologEpilogTimeoutFrom("PrologFlags             = Alloc\nPrologEpilogTimeout     = 300\n") == 300);
  CHECK(PrologEpilogTimeoutFrom("PrologEpilogTimeout     = 45 sec\n") == 45);
  // Slurm's "wait indefinitely", a missing line, or a line without a value: no limit.
  CHECK(PrologEpilogTimeoutFrom("PrologEpilogTimeout     = 65534\n") == 0);
  CHECK(PrologEpilogTimeoutFrom("PrologFlags             = Alloc\n") == 0);
  CHECK(PrologEpilogTimeoutFrom("PrologEpilogTimeout\n") == 0);
  CHECK(PrologEpilogTimeoutFrom("") == 0);
}

TEST_CASE("the stage's time is the limit less a margin and what was spent", "[stage_limit]") {
  CHECK(StageMargin(300) == 10);
  CHECK(StageMargin(8) == 2);
  CHECK(StageTimeLeft(300, 5) == 285);
  CHECK(StageTimeLeft(8, 1) == 5);
  CHECK(StageTimeLeft(8, 7) == 0);       // never below nothing
  CHECK(StageTimeLeft(0, 1e6) >= 3600);  // no limit
}

TEST_CASE("a stage-in that would pass the limit is refused in advance, saying why", "[stage_limit]") {
  const uint64_t mib = 1 << 20;
  CHECK(StageInRefusal(100 * mib, 100 * mib, 5, 20).empty());  // 1 s of 5
  std::string why = StageInRefusal(1200 * mib, 100 * mib, 5, 20);
  CHECK(why.find("stage_in of 1.17 GiB needs about 12 s at 100 MiB/s (BB_STAGE_RATE)") != std::string::npos);
  CHECK(why.find("more than the 5 s the Prolog has left of its 20 s limit (PrologEpilogTimeout)") != std::string::npos);
  CHECK(why.find("nothing was staged") != std::string::npos);
  CHECK(StageInRefusal(1200 * mib, 100 * mib, 5, 0).empty());  // no limit
  CHECK(StageInRefusal(1200 * mib, 0, 5, 20).empty());         // no rate: nothing to estimate by
}

}  // namespace
}  // namespace bb::jobs
