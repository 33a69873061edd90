// The liveness rules on timelines of pings and answers (period 1000 ns for readability).
#include "transport/liveness.h"

#include <catch2/catch.hpp>

namespace bb::transport {
namespace {

constexpr int64_t kPeriod = 1000;

TEST_CASE("liveness: a peer that answers and serves is alive, one that serves nothing is gone", "[liveness]") {
  Liveness l;
  CHECK(Judge(l, 10, kPeriod) == Verdict::kAsk);  // nothing known
  CHECK(ShouldPing(l, 10, kPeriod));
  PingSent(&l, 10);
  CHECK_FALSE(ShouldPing(l, 20, kPeriod));  // one is out
  CHECK(Judge(l, 500, kPeriod) == Verdict::kAsk);
  PingAnswered(&l, true, 7, 100, kPeriod);
  CHECK(Judge(l, 150, kPeriod) == Verdict::kAsk);  // one answer shows no work
  CHECK_FALSE(ShouldPing(l, 200, kPeriod));        // a quarter period after the last
  CHECK(ShouldPing(l, 260, kPeriod));
  PingSent(&l, 260);
  PingAnswered(&l, true, 9, 300, kPeriod);  // served 2 more
  CHECK(Judge(l, 350, kPeriod) == Verdict::kAlive);
  CHECK(Judge(l, 1300, kPeriod) == Verdict::kAsk);  // the answer is a period old
  // Answers keep coming without work done: gone a period after the last progress.
  PingAnswered(&l, true, 9, 900, kPeriod);
  CHECK(Judge(l, 1000, kPeriod) == Verdict::kAlive);
  PingAnswered(&l, true, 9, 1250, kPeriod);
  CHECK(Judge(l, 1300, kPeriod) == Verdict::kGone);  // quiet since 300, a period
}

TEST_CASE("liveness: an unanswered ping is gone once it expires, a later answer brings it back", "[liveness]") {
  Liveness l;
  PingSent(&l, 0);
  CHECK(Judge(l, 999, kPeriod) == Verdict::kAsk);
  PingAnswered(&l, false, 0, 1000, kPeriod);  // expired
  CHECK(Judge(l, 1000, kPeriod) == Verdict::kGone);
  PingSent(&l, 1500);
  PingAnswered(&l, true, 3, 1600, kPeriod);
  CHECK(Judge(l, 1700, kPeriod) == Verdict::kAsk);
  PingAnswered(&l, true, 5, 1900, kPeriod);
  CHECK(Judge(l, 2000, kPeriod) == Verdict::kAlive);
}

TEST_CASE("liveness: a reply to any call is life and progress, even with a ping gone unanswered", "[liveness]") {
  Liveness l;
  PingSent(&l, 0);
  PingAnswered(&l, false, 0, 1000, kPeriod);
  CHECK(Judge(l, 1000, kPeriod) == Verdict::kGone);
  Replied(&l, 1100);
  CHECK(Judge(l, 1200, kPeriod) == Verdict::kAlive);
  CHECK(Judge(l, 2100, kPeriod) == Verdict::kAsk);  // a period later nothing is known
}

TEST_CASE("liveness: growth seen across a long silence is not progress", "[liveness]") {
  Liveness l;
  PingAnswered(&l, true, 1, 0, kPeriod);
  PingAnswered(&l, true, 50, 5000, kPeriod);  // two periods and more apart
  CHECK(Judge(l, 5100, kPeriod) == Verdict::kAsk);
}

TEST_CASE("liveness: a peer that only waits on other nodes is waiting, not gone", "[liveness]") {
  Liveness l;
  PingAnswered(&l, true, 4, 100, kPeriod, 1);
  PingAnswered(&l, true, 4, 300, kPeriod, 2);  // served nothing, waited on live nodes
  CHECK(Judge(l, 400, kPeriod) == Verdict::kWaiting);
  PingAnswered(&l, true, 4, 600, kPeriod, 2);
  CHECK(Judge(l, 1200, kPeriod) == Verdict::kWaiting);  // waited at 300, within a period
  CHECK(Judge(l, 1350, kPeriod) == Verdict::kGone);     // neither served nor waited for a period
  PingAnswered(&l, true, 5, 1400, kPeriod, 2);          // served again
  CHECK(Judge(l, 1450, kPeriod) == Verdict::kAlive);
}

TEST_CASE("liveness: time the judge did not run is not held against the peer", "[liveness]") {
  Liveness l;
  PingAnswered(&l, true, 1, 100, kPeriod);
  PingAnswered(&l, true, 2, 200, kPeriod);  // progress at 200
  Liveness unpaused = l;
  // The judge's host paused from 300 to 5300.
  Paused(&l, 5000);
  CHECK(Judge(l, 5400, kPeriod) == Verdict::kAlive);  // as at 400
  CHECK(Judge(unpaused, 5400, kPeriod) == Verdict::kAsk);
  CHECK(Judge(l, 6300, kPeriod) == Verdict::kAsk);  // as at 1300: the last answer is a period old
  PingSent(&l, 6300);
  PingAnswered(&l, true, 3, 6350, kPeriod);
  CHECK(Judge(l, 6400, kPeriod) == Verdict::kAlive);
}

}  // namespace
}  // namespace bb::transport
