#include "fs/base/log_limit.h"

#include <catch2/catch.hpp>

namespace bb {
namespace {

TEST_CASE("log limiter: one line per kind per window, with the count held back", "[base]") {
  LogLimiter l(10);
  uint64_t held = 99;
  CHECK(l.Admit("a", 0, &held));
  CHECK(held == 0);
  CHECK_FALSE(l.Admit("a", 3, &held));
  CHECK_FALSE(l.Admit("a", 9, &held));
  CHECK(l.Admit("b", 9, &held));  // another kind has its own window
  CHECK(held == 0);
  CHECK(l.Admit("a", 10, &held));
  CHECK(held == 2);
  CHECK_FALSE(l.Admit("a", 11, &held));
  for (size_t i = 0; i < LogLimiter::kMaxKinds + 10; ++i) (void)l.Admit("k" + std::to_string(i), 20, &held);
  CHECK(l.Admit("a", 12, &held));  // the table was cleared when it was full: bounded memory
}

}  // namespace
}  // namespace bb
