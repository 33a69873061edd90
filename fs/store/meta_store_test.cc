// One contract, run against every MetaStore implementation.
#include "fs/store/meta_store.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "fs/base/temp_dir.h"

namespace bb::fs {
namespace {

void RunContract(MetaStore& s) {
  SECTION("get of a missing key is ENOENT") {
    auto r = s.Get("nope");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ENOENT);
  }
  SECTION("put, get, overwrite, delete") {
    REQUIRE(s.Put("k", "v1").ok());
    CHECK(*s.Get("k") == "v1");
    REQUIRE(s.Put("k", "v2").ok());
    CHECK(*s.Get("k") == "v2");
    REQUIRE(s.Delete("k").ok());
    CHECK(s.Get("k").error().code() == ENOENT);
  }
  SECTION("binary keys and values") {
    std::string key("a\0b", 3), value("\0\xff\x01", 3);
    REQUIRE(s.Put(key, value).ok());
    CHECK(*s.Get(key) == value);
    CHECK(s.Get("a").error().code() == ENOENT);
  }
  SECTION("batches apply all operations") {
    REQUIRE(s.Put("x", "1").ok());
    WriteBatch b;
    b.Delete("x");
    b.Put("y", "2");
    b.Put("z", "3");
    REQUIRE(s.Write(b, true).ok());
    CHECK(s.Get("x").error().code() == ENOENT);
    CHECK(*s.Get("y") == "2");
    CHECK(*s.Get("z") == "3");
  }
  SECTION("scan stays inside the prefix, in order, paged by start_after") {
    for (const char* k : {"p/c", "p/a", "p/b", "q/a", "o/z", "p"}) REQUIRE(s.Put(k, k).ok());
    auto all = s.Scan("p/", "", 100);
    REQUIRE(all.has_value());
    REQUIRE(all->size() == 3);
    CHECK((*all)[0].first == "p/a");
    CHECK((*all)[1].first == "p/b");
    CHECK((*all)[2].first == "p/c");
    auto page1 = s.Scan("p/", "", 2);
    REQUIRE(page1->size() == 2);
    auto page2 = s.Scan("p/", "b", 2);
    REQUIRE(page2->size() == 1);
    CHECK((*page2)[0].first == "p/c");
    CHECK(s.Scan("p/", "c", 2)->empty());
    CHECK(s.Scan("none/", "", 10)->empty());
  }
  SECTION("sync succeeds") { CHECK(s.Sync().ok()); }
}

TEST_CASE("MetaStore contract: memory", "[store]") {
  auto s = NewMemoryMetaStore();
  RunContract(*s);
}

TEST_CASE("MetaStore contract: LevelDB", "[store]") {
  TempDir dir("bb-meta");
  auto s = OpenLevelDbMetaStore(dir.path + "/db");
  REQUIRE(s.has_value());
  RunContract(**s);
}

TEST_CASE("LevelDB store keeps data across reopen and refuses a second opener", "[store]") {
  TempDir dir("bb-meta");
  {
    auto s = OpenLevelDbMetaStore(dir.path + "/db");
    REQUIRE(s.has_value());
    REQUIRE((*s)->Put("kept", "yes", true).ok());
    auto second = OpenLevelDbMetaStore(dir.path + "/db");
    REQUIRE_FALSE(second.has_value());
    CHECK(second.error().code() == EBUSY);
  }
  auto s = OpenLevelDbMetaStore(dir.path + "/db");
  REQUIRE(s.has_value());
  CHECK(*(*s)->Get("kept") == "yes");
}

}  // namespace
}  // namespace bb::fs
