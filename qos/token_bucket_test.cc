#include "qos/token_bucket.h"

#include <catch2/catch.hpp>
#include <cstdint>

namespace bb::qos {
namespace {

constexpr int64_t kSec = 1'000'000'000;

// Admits as many 1-token requests as possible over `seconds`, trying every 100 us.
int64_t Admitted(TokenBucket& b, int64_t start, int64_t seconds) {
  int64_t n = 0;
  for (int64_t t = start; t < start + seconds * kSec; t += 100'000) {
    while (b.TryTake(1, t)) ++n;
  }
  return n;
}

TEST_CASE("a bucket admits its rate over time plus one burst", "[qos]") {
  struct Row {
    double rate, burst;
    int64_t seconds;
  };
  const Row rows[] = {{2000, 100, 5}, {100, 1, 10}, {50000, 5000, 2}, {10, 10, 30}};
  for (const Row& r : rows) {
    INFO("rate " << r.rate << " burst " << r.burst);
    TokenBucket b(r.rate, r.burst, 0);
    int64_t got = Admitted(b, 0, r.seconds);
    double want = r.rate * r.seconds + r.burst;
    CHECK(got >= want * 0.999 - 1);
    CHECK(got <= want + 1);
  }
}

TEST_CASE("idle time refills only up to the burst", "[qos]") {
  TokenBucket b(1000, 50, 0);
  for (int i = 0; i < 50; ++i) REQUIRE(b.TryTake(1, 0));
  CHECK_FALSE(b.TryTake(1, 0));
  CHECK(b.tokens(3600 * kSec) == Approx(50));  // an hour idle: still one burst
  for (int i = 0; i < 50; ++i) REQUIRE(b.TryTake(1, 3600 * kSec));
  CHECK_FALSE(b.TryTake(1, 3600 * kSec));
}

TEST_CASE("waits are exact and a request above the burst is admitted on credit", "[qos]") {
  TokenBucket b(1 << 20, 1 << 20, 0);  // 1 MiB/s of data, 1 MiB burst
  REQUIRE(b.TryTake(1 << 20, 0));
  CHECK(b.WaitNs(1 << 19, 0) == kSec / 2);
  CHECK_FALSE(b.TryTake(1 << 19, kSec / 4));
  CHECK(b.TryTake(4 << 20, kSec));  // 4 MiB at once: allowed with a full burst, leaves debt
  CHECK(b.tokens(kSec) == Approx(-3.0 * (1 << 20)));
  CHECK(b.WaitNs(1, kSec) > 3 * kSec - 1000);  // the debt is paid back first
  TokenBucket stopped(0, 10, 0);
  for (int i = 0; i < 10; ++i) REQUIRE(stopped.TryTake(1, 0));
  CHECK(stopped.WaitNs(1, 100 * kSec) == INT64_MAX);
}

TEST_CASE("rate changes take effect from the moment they are made", "[qos]") {
  TokenBucket b(100, 10, 0);
  int64_t first = Admitted(b, 0, 10);  // 1000 + 10
  b.SetRate(1000, 10, 10 * kSec);
  int64_t second = Admitted(b, 10 * kSec, 10);  // 10000 (+ at most the burst)
  CHECK(first == Approx(1010).margin(2));
  CHECK(second == Approx(10000).margin(12));
  b.SetRate(1000, 2, 20 * kSec);
  CHECK(b.tokens(30 * kSec) <= 2);
}

}  // namespace
}  // namespace bb::qos
