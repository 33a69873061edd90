#include "fs/core/placement/chunking.h"

#include <catch2/catch.hpp>

namespace bb::fs {
namespace {

TEST_CASE("SplitRange maps byte ranges onto chunks", "[core]") {
  struct Row {
    uint64_t offset, length, chunk;
    std::vector<ChunkSpan> want;
  };
  const Row rows[] = {
      {0, 0, 8, {}},
      {0, 8, 8, {{0, 0, 8, 0}}},                // exactly one chunk
      {0, 3, 8, {{0, 0, 3, 0}}},                // inside the first chunk
      {5, 3, 8, {{0, 5, 3, 0}}},                // ends at the border
      {8, 1, 8, {{1, 0, 1, 0}}},                // starts at a border
      {6, 4, 8, {{0, 6, 2, 0}, {1, 0, 2, 2}}},  // across one border
      {7, 18, 8, {{0, 7, 1, 0}, {1, 0, 8, 1}, {2, 0, 8, 9}, {3, 0, 1, 17}}},
      {1ULL << 40, 5, 1 << 19, {{(1ULL << 40) >> 19, 0, 5, 0}}},  // far beyond, sparse
      {524287, 2, 524288, {{0, 524287, 1, 0}, {1, 0, 1, 1}}},
  };
  for (const Row& r : rows) {
    INFO("offset " << r.offset << " length " << r.length << " chunk " << r.chunk);
    CHECK(SplitRange(r.offset, r.length, r.chunk) == r.want);
  }
}

TEST_CASE("ChunkCount and chunk size validation", "[core]") {
  CHECK(ChunkCount(0, 8) == 0);
  CHECK(ChunkCount(1, 8) == 1);
  CHECK(ChunkCount(8, 8) == 1);
  CHECK(ChunkCount(9, 8) == 2);
  CHECK(IsValidChunkSize(4096));
  CHECK(IsValidChunkSize(512 * 1024));
  CHECK_FALSE(IsValidChunkSize(0));
  CHECK_FALSE(IsValidChunkSize(2048));
  CHECK_FALSE(IsValidChunkSize(3 * 4096));
  CHECK_FALSE(IsValidChunkSize(2ULL << 30));
}

}  // namespace
}  // namespace bb::fs
