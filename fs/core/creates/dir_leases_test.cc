#include "fs/core/creates/dir_leases.h"

#include <catch2/catch.hpp>

namespace bb::fs {
namespace {

constexpr int64_t kT0 = 1'000'000'000'000;

TEST_CASE("DirLeases: a granted lease answers names it does not know as absent, until its term", "[core]") {
  DirLeases l;
  DirLeases::Use first = l.Absent("/d", 2, "a", kT0);
  REQUIRE(first.ask);
  CHECK(first.renew == 0);
  CHECK_FALSE(l.Absent("/d", 2, "b", kT0).ask);  // one asking at a time
  l.Granted("/d", 2, kT0, DirLease{7, {"old"}}, {"/d/waiting"});
  CHECK(l.Absent("/d", 2, "a", kT0 + 1).grant == 7);
  CHECK(l.Absent("/d", 2, "old", kT0 + 1).grant == 0);      // there when it was given
  CHECK(l.Absent("/d", 2, "waiting", kT0 + 1).grant == 0);  // made here, not yet stored there
  CHECK(l.Absent("/d", 3, "a", kT0 + 1).ask);               // another owner's names: its own lease
  CHECK(l.Absent("/e", 2, "a", kT0 + 1).ask);
  // Past the term: renewed by its grant, what it knows kept.
  DirLeases::Use renew = l.Absent("/d", 2, "c", kT0 + DirLeases::kTermNs);
  REQUIRE(renew.ask);
  CHECK(renew.renew == 7);
  CHECK(l.Absent("/d", 2, "c", kT0 + DirLeases::kTermNs).grant == 0);  // asking
  l.Granted("/d", 2, kT0 + DirLeases::kTermNs, DirLease{7, {}}, {});
  CHECK(l.Absent("/d", 2, "c", kT0 + DirLeases::kTermNs + 1).grant == 7);
  CHECK(l.Absent("/d", 2, "old", kT0 + DirLeases::kTermNs + 1).grant == 0);
  CHECK(l.counters().granted == 1);
  CHECK(l.counters().renewed == 1);
  CHECK(l.counters().held == 1);
}

TEST_CASE("DirLeases: names this node makes are known from the make on", "[core]") {
  DirLeases l;
  REQUIRE(l.Absent("/d", 2, "x", kT0).ask);
  {
    auto making = l.Make("/d/during", 2);  // while asking: known once granted
  }
  l.Granted("/d", 2, kT0, DirLease{5, {}}, {});
  CHECK(l.Absent("/d", 2, "during", kT0).grant == 0);
  {
    auto making = l.Make("/d/after", 2);
    CHECK(l.Absent("/d", 2, "after", kT0).grant == 0);
  }
  CHECK(l.Absent("/d", 2, "after", kT0).grant == 0);
  CHECK(l.Absent("/d", 2, "other", kT0).grant == 5);
}

TEST_CASE("DirLeases: no lease is asked for while a make of the directory is under way", "[core]") {
  DirLeases l;
  {
    auto making = l.Make("/d/a", 2);
    CHECK_FALSE(l.Absent("/d", 2, "b", kT0).ask);
    CHECK(l.Absent("/e", 2, "b", kT0).ask);  // another directory
  }
  CHECK(l.Absent("/d", 2, "b", kT0).ask);
}

TEST_CASE("DirLeases: a refused lease is asked for again only after a while, and a recalled one ends", "[core]") {
  DirLeases l;
  REQUIRE(l.Absent("/d", 2, "a", kT0).ask);
  l.Granted("/d", 2, kT0, DirLease{}, {});
  CHECK_FALSE(l.Absent("/d", 2, "a", kT0 + 1).ask);
  CHECK(l.Absent("/d", 2, "a", kT0 + DirLeases::kRetryNs).ask);
  l.Refused("/d", 2, kT0 + DirLeases::kRetryNs);
  CHECK(l.counters().refused == 2);

  REQUIRE(l.Absent("/r", 2, "a", kT0).ask);
  l.Granted("/r", 2, kT0, DirLease{9, {}}, {});
  CHECK(l.Absent("/r", 2, "a", kT0).grant == 9);
  l.Recalled("/r", 2, kT0);
  CHECK(l.Absent("/r", 2, "a", kT0).grant == 0);
  CHECK_FALSE(l.Absent("/r", 2, "a", kT0 + 1).ask);  // another node uses it: not asked for a while
  CHECK(l.counters().recalled == 1);
  // Recalled while the asking was on its way: the grant, when it comes, is void.
  REQUIRE(l.Absent("/r", 2, "a", kT0 + DirLeases::kRetryNs).ask);
  l.Recalled("/r", 2, kT0 + DirLeases::kRetryNs);
  l.Granted("/r", 2, kT0 + DirLeases::kRetryNs, DirLease{10, {}}, {});
  CHECK(l.Absent("/r", 2, "a", kT0 + DirLeases::kRetryNs, /*may_ask=*/false).grant == 0);
  CHECK(l.counters().held == 0);
}

TEST_CASE("DirLeases: a lease that knows too many names is not used", "[core]") {
  DirLeases l;
  REQUIRE(l.Absent("/d", 2, "a", kT0).ask);
  std::vector<std::string> names;
  for (size_t i = 0; i <= DirLeases::kMaxKnown; ++i) names.push_back("n" + std::to_string(i));
  l.Granted("/d", 2, kT0, DirLease{3, names}, {});
  CHECK(l.Absent("/d", 2, "a", kT0).grant == 0);
}

TEST_CASE("DirLeases: with the most held, those past their term make room", "[core]") {
  DirLeases l;
  for (size_t i = 0; i < DirLeases::kMaxLeases; ++i) {
    std::string dir = "/d" + std::to_string(i);
    REQUIRE(l.Absent(dir, 2, "a", kT0).ask);
    l.Granted(dir, 2, kT0, DirLease{i + 1, {}}, {});
  }
  CHECK_FALSE(l.Absent("/new", 2, "a", kT0 + 1).ask);  // all in their term
  CHECK(l.Absent("/new", 2, "a", kT0 + DirLeases::kTermNs).ask);
  CHECK(l.counters().held == 0);
}

TEST_CASE("DirLeases: leases that know too many names in all are not used", "[core]") {
  DirLeases l;
  const size_t per = DirLeases::kMaxKnown - 1;
  const size_t leases = DirLeases::kMaxKnownTotal / per + 1;
  for (size_t i = 0; i < leases; ++i) {
    std::string dir = "/d" + std::to_string(i);
    REQUIRE(l.Absent(dir, 2, "a", kT0).ask);
    std::vector<std::string> names;
    for (size_t k = 0; k < per; ++k) names.push_back("n" + std::to_string(k));
    l.Granted(dir, 2, kT0, DirLease{i + 1, names}, {});
  }
  CHECK(l.Absent("/d0", 2, "a", kT0).grant == 1);                              // within the bound
  CHECK(l.Absent("/d" + std::to_string(leases - 1), 2, "a", kT0).grant == 0);  // the one past it
}

}  // namespace
}  // namespace bb::fs
