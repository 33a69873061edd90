#include "fs/core/placement/file_id_allocator.h"

#include <catch2/catch.hpp>
#include <set>

#include "fs/base/temp_dir.h"

namespace bb::fs {
namespace {

TEST_CASE("file ids are unique on a node and across restarts, and carry the node", "[core]") {
  TempDir dir("bb-ids");
  std::set<uint64_t> seen;
  for (int run = 0; run < 3; ++run) {
    auto store = OpenLevelDbMetaStore(dir.path + "/meta");
    REQUIRE(store.has_value());
    FileIdAllocator ids(store->get(), 6);
    for (int i = 0; i < 1000; ++i) {
      auto id = ids.Next();
      REQUIRE(id.has_value());
      CHECK(*id >> 48 == 7);  // node 6
      CHECK(seen.insert(*id).second);
    }
  }
}

TEST_CASE("NextWhere hands out the first id that suits, or the first tried", "[core]") {
  auto store = NewMemoryMetaStore();
  FileIdAllocator ids(store.get(), 0);
  auto odd = [](uint64_t id) { return id % 2 == 1; };
  auto a = ids.NextWhere(odd, 4);
  REQUIRE(a.has_value());
  CHECK(*a % 2 == 1);
  auto b = ids.NextWhere([](uint64_t id) { return id % 7 == 0; }, 16);
  REQUIRE(b.has_value());
  CHECK(*b % 7 == 0);
  CHECK(*b > *a);
  // None of the tries suits: the first one tried, and the others are used up.
  auto c = ids.NextWhere([](uint64_t) { return false; }, 5);
  REQUIRE(c.has_value());
  CHECK(*c == *b + 1);
  CHECK(*ids.Next() == *c + 5);
}

}  // namespace
}  // namespace bb::fs
