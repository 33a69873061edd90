// Statahead: the read-ahead policy on its own (times given, nothing sleeps), then in a 4-node
// in-process cluster whose nodes keep each other's caches coherent.
#include "fs/core/coherence/statahead.h"

#include <catch2/catch.hpp>
#include <string>

#include "fs/core/coherence/coherence.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kFresh = 30 * kSecond;

Metadata Md(uint64_t id) {
  Metadata md;
  md.file_id = id;
  md.mode = 0644;
  return md;
}

std::vector<std::pair<std::string, Metadata>> Entries(const std::string& dir, int n) {
  std::vector<std::pair<std::string, Metadata>> out;
  for (int i = 0; i < n; ++i) out.emplace_back(dir + "/f" + std::to_string(i), Md(100 + i));
  return out;
}

TEST_CASE("statahead: a directory is read ahead after `trigger` misses, and each entry answers once", "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 4, .window = 100});
  int64_t t = 1000 * kSecond;
  CHECK_FALSE(s.Missed("/d", t));
  CHECK_FALSE(s.Missed("/d", t));
  CHECK_FALSE(s.Missed("/e", t));  // another directory counts apart
  CHECK_FALSE(s.Missed("/d", t));
  auto plan = s.Missed("/d", t);
  REQUIRE(plan);
  CHECK(plan->dir == "/d");
  CHECK(plan->start_after.empty());
  CHECK_FALSE(s.Missed("/d", t));  // one read-ahead of a directory at a time
  s.Fill(*plan, Entries("/d", 10), t, "");
  CHECK(s.size() == 10);
  auto hit = s.Take("/d/f3", t + kSecond);
  REQUIRE(hit);
  CHECK(hit->md.file_id == 103);
  CHECK(hit->asked_ns == t);
  CHECK_FALSE(s.Take("/d/f3", t + kSecond));  // taken
  CHECK_FALSE(s.Take("/d/none", t));          // never a negative answer
  // The owners' promise runs from the read: past it nothing answers.
  CHECK_FALSE(s.Take("/d/f4", t + kFresh));
  auto c = s.counters();
  CHECK(c.reads == 1);
  CHECK(c.fetched == 10);
  CHECK(c.hits == 1);
}

TEST_CASE("statahead: misses a second apart do not add up, and it is off when nothing is promised", "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 2, .window = 100});
  CHECK_FALSE(s.Missed("/d", 0));
  CHECK_FALSE(s.Missed("/d", 2 * kSecond));
  CHECK(s.Missed("/d", 2 * kSecond + 1));
  Statahead off({.fresh_ns = 0, .trigger = 1});
  CHECK_FALSE(off.enabled());
  CHECK_FALSE(off.Missed("/d", 0));
}

TEST_CASE("statahead: a change drops its entry (and what is below, when asked), also from a read under way",
          "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 1, .window = 100});
  auto plan = s.Missed("/d", 0);
  REQUIRE(plan);
  s.Changed("/d/f1", false);  // changed while the read was on its way
  s.Changed("/d", false);     // the directory's own entry: not what is in it
  s.Fill(*plan, Entries("/d", 4), 0, "");
  CHECK_FALSE(s.Take("/d/f1", 1));
  CHECK(s.Take("/d/f0", 1));
  s.Changed("/d/f2", false);
  CHECK_FALSE(s.Take("/d/f2", 1));
  s.Changed("/d", true);  // a name dropped with what is below it (a workspace removed)
  CHECK_FALSE(s.Take("/d/f3", 1));
  CHECK(s.size() == 0);
  // "/dx" is not below "/d".
  auto again = s.Missed("/dx", 0);
  REQUIRE(again);
  s.Fill(*again, Entries("/dx", 1), 0, "");
  s.Changed("/d", true);
  CHECK(s.Take("/dx/f0", 1));
}

TEST_CASE("statahead: a read that raced more changes than are remembered keeps nothing", "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 1, .window = 100});
  auto plan = s.Missed("/d", 0);
  REQUIRE(plan);
  for (int i = 0; i < 5000; ++i) s.Changed("/other/" + std::to_string(i), false);
  s.Fill(*plan, Entries("/d", 4), 0, "");
  CHECK(s.size() == 0);
  CHECK(s.counters().fetched == 4);
}

TEST_CASE("statahead: windows follow each other, and a read that answered little doubles the trigger", "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 2, .window = 4});
  int64_t t = 0;
  s.Missed("/d", t);
  auto first = s.Missed("/d", t);
  REQUIRE(first);
  s.Fill(*first, Entries("/d", 4), t, "f3");
  for (int i = 0; i < 4; ++i) REQUIRE(s.Take("/d/f" + std::to_string(i), t));
  s.Missed("/d", t);
  auto second = s.Missed("/d", t);  // four hits: as useful as it gets, the trigger stays
  REQUIRE(second);
  CHECK(second->start_after == "f3");
  s.Fill(*second, Entries("/d", 4), t, "");  // nothing of it answers
  s.Missed("/d", t);
  CHECK_FALSE(s.Missed("/d", t));  // no hit since: the trigger is now 4
  s.Missed("/d", t);
  auto third = s.Missed("/d", t);
  REQUIRE(third);
  CHECK(third->start_after.empty());                           // the last one reached the directory's end
  s.Fill(*third, Entries("/d", 4), t, "");                     // nothing of it answers either
  for (int i = 0; i < 7; ++i) CHECK_FALSE(s.Missed("/d", t));  // doubled again: 8
  CHECK(s.Missed("/d", t));
}

TEST_CASE("statahead: at most `capacity` entries are held, and old ones make room", "[statahead]") {
  Statahead s({.fresh_ns = kFresh, .trigger = 1, .window = 100, .capacity = 6});
  auto a = s.Missed("/a", 0);
  s.Fill(*a, Entries("/a", 4), 0, "");
  auto b = s.Missed("/b", 0);
  s.Fill(*b, Entries("/b", 4), 0, "");
  CHECK(s.size() == 6);
  auto c = s.Missed("/c", kFresh);
  s.Fill(*c, Entries("/c", 4), kFresh, "");  // /a and /b ran out: they go
  CHECK(s.size() == 4);
  CHECK(s.Take("/c/f0", kFresh));
}

// ---- in a cluster ----

using testing::Cluster;
using testing::kUser;

FileSystemOptions Coherent() {
  FileSystemOptions o = Cluster::Defaults();
  o.attr_cache_ns = kFresh;
  return o;
}

uint64_t MetaToOthers(Cluster& c, uint32_t from) {
  uint64_t n = 0;
  for (uint32_t to = 0; to < c.members.size(); ++to) {
    if (to != from) n += c.MetaTo(from, to);
  }
  return n;
}

TEST_CASE("statahead in a cluster: lookups of another node's files answer from one read per node, coherently",
          "[statahead][core]") {
  Cluster c(4, Coherent());
  uint64_t d0 = c.Walk(0, "/");
  auto dir = c.fs(0).Mkdir(d0, "d", 0755, kUser);
  REQUIRE(dir);
  constexpr int kFiles = 60;
  for (int i = 0; i < kFiles; ++i) c.Write(0, "/d", "f" + std::to_string(i), "data");
  uint64_t d1 = c.Walk(1, "/d");
  uint64_t before = MetaToOthers(c, 1);
  for (int i = 0; i < 20; ++i) {
    auto e = c.fs(1).Lookup(d1, "f" + std::to_string(i));
    REQUIRE(e);
    CHECK(e->md.size == 4);
  }
  // 8 lookups went to their owners (6 of them, in expectation, to other nodes), then one page
  // from each of the 3 other nodes; the other 12 answered here.
  uint64_t asked = MetaToOthers(c, 1) - before;
  CHECK(asked <= 8 + 3);
  CHECK(c.fs(1).StataheadCounters().reads == 1);
  CHECK(c.fs(1).StataheadCounters().hits == 12);

  SECTION("a change on another node reaches entries read ahead") {
    uint64_t d2 = c.Walk(2, "/d");
    auto f30 = c.fs(2).Lookup(d2, "f30");
    REQUIRE(f30);
    SetAttrRequest chmod;
    chmod.mode = 0600;
    REQUIRE(c.fs(2).SetAttr(f30->ino, chmod, nullptr));
    REQUIRE(c.fs(2).Unlink(d2, "f31").ok());
    REQUIRE(c.fs(2).Rename(d2, "f32", d2, "moved", 0).ok());
    c.Write(3, "/d", "f33", "longer data");  // written over on another node
    auto e30 = c.fs(1).Lookup(d1, "f30");
    REQUIRE(e30);
    CHECK(e30->md.mode == 0600);
    CHECK(c.fs(1).Lookup(d1, "f31").error().code() == ENOENT);
    CHECK(c.fs(1).Lookup(d1, "f32").error().code() == ENOENT);
    CHECK(c.fs(1).Lookup(d1, "moved"));
    CHECK(c.fs(1).Lookup(d1, "f33")->md.size == 11);
  }
  SECTION("a change this node makes reaches its own entries read ahead") {
    REQUIRE(c.fs(1).Unlink(d1, "f40").ok());
    CHECK(c.fs(1).Lookup(d1, "f40").error().code() == ENOENT);
  }
  SECTION("past the owners' promise, lookups ask the owners again") {
    c.clock.Advance(kFresh);
    uint64_t hits = c.fs(1).StataheadCounters().hits;
    REQUIRE(c.fs(1).Lookup(d1, "f50"));
    CHECK(c.fs(1).StataheadCounters().hits == hits);
  }
  SECTION("a node owed everything trusts nothing it cached") {
    auto before = c.fs(1).Lookup(d1, "f50");  // from statahead: fresh
    REQUIRE(before);
    c.fs(1).Invalidated({kDropEverything});
    uint64_t hits = c.fs(1).StataheadCounters().hits;
    auto e = c.fs(1).Lookup(d1, "f51");
    REQUIRE(e);
    CHECK(c.fs(1).StataheadCounters().hits == hits);
    uint64_t asked = MetaToOthers(c, 1) + c.MetaTo(1, 1);
    REQUIRE(c.fs(1).GetAttr(before->ino));  // its copy of f50, fresh a moment ago, is not trusted
    CHECK(MetaToOthers(c, 1) + c.MetaTo(1, 1) == asked + 1);
  }
  SECTION("a directory's attributes are cached for a second at most, its name as long as any") {
    auto e = c.fs(1).Lookup(kRootFileId, "d");
    REQUIRE(e);
    CHECK(e->attr_left_ns == kSecond);
    CHECK(e->fresh_left_ns < 0);  // the whole timeout
    auto f = c.fs(1).Lookup(d1, "f1");
    REQUIRE(f);
    CHECK(f->attr_left_ns < 0);
  }
  SECTION("an answer read ahead is cached by the kernel no longer than the promise") {
    c.clock.Advance(20 * kSecond);
    auto e = c.fs(1).Lookup(d1, "f45");
    REQUIRE(e);
    CHECK(e->fresh_left_ns == 10 * kSecond);
    c.clock.Advance(5 * kSecond);
    auto attr = c.fs(1).GetAttr(e->ino);  // from this node's copy: what is left of it
    REQUIRE(attr);
    CHECK(attr->fresh_left_ns == 5 * kSecond);
  }
}

TEST_CASE("statahead is off without coherence, and for lookups that are local anyway", "[statahead][core]") {
  Cluster plain(4);  // attr_cache_ns 0: nobody promises to tell
  for (int i = 0; i < 20; ++i) plain.Write(0, "/", "f" + std::to_string(i), "x");
  for (int i = 0; i < 20; ++i) REQUIRE(plain.fs(1).Lookup(kRootFileId, "f" + std::to_string(i)));
  CHECK(plain.fs(1).StataheadCounters().reads == 0);
  Cluster one(1, Coherent());
  for (int i = 0; i < 20; ++i) one.Write(0, "/", "f" + std::to_string(i), "x");
  for (int i = 0; i < 20; ++i) REQUIRE(one.fs(0).Lookup(kRootFileId, "f" + std::to_string(i)));
  CHECK(one.fs(0).StataheadCounters().reads == 0);
}

}  // namespace
}  // namespace bb::fs
