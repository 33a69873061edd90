// One contract, run against every ChunkStore implementation.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "fs/store/chunk_store.h"

namespace bb::fs {
namespace {

std::string ReadAll(ChunkStore& s, uint64_t id, uint64_t idx, size_t n, uint64_t off = 0) {
  std::string buf(n, 'X');
  auto got = s.Read(id, idx, off, {buf.data(), n});
  REQUIRE(got.has_value());
  buf.resize(*got);
  return buf;
}

void RunContract(ChunkStore& s) {
  SECTION("missing chunk reads as nothing") { CHECK(ReadAll(s, 7, 0, 16).empty()); }
  SECTION("write then read at offsets, gaps are zeros") {
    REQUIRE(s.Write(7, 0, 0, std::string("hello")).ok());
    REQUIRE(s.Write(7, 0, 10, std::string("world")).ok());
    CHECK(ReadAll(s, 7, 0, 100) == std::string("hello\0\0\0\0\0world", 15));
    CHECK(ReadAll(s, 7, 0, 3, 12) == "rld");
    CHECK(ReadAll(s, 7, 1, 10).empty());
  }
  SECTION("truncate drops chunks at and past the size and shortens the spanning one") {
    for (uint64_t i = 0; i < 4; ++i) REQUIRE(s.Write(9, i, 0, std::string(8, 'a' + i)).ok());
    REQUIRE(s.Truncate(9, 8 + 3, 8).ok());  // keeps chunk 0 and 3 bytes of chunk 1
    CHECK(ReadAll(s, 9, 0, 8) == "aaaaaaaa");
    CHECK(ReadAll(s, 9, 1, 8) == "bbb");
    CHECK(ReadAll(s, 9, 2, 8).empty());
    CHECK(ReadAll(s, 9, 3, 8).empty());
  }
  SECTION("remove drops every chunk of one file only") {
    REQUIRE(s.Write(1, 0, 0, std::string("one")).ok());
    REQUIRE(s.Write(1, 5, 0, std::string("five")).ok());
    REQUIRE(s.Write(2, 0, 0, std::string("other")).ok());
    REQUIRE(s.Remove(1).ok());
    CHECK(ReadAll(s, 1, 0, 8).empty());
    CHECK(ReadAll(s, 1, 5, 8).empty());
    CHECK(ReadAll(s, 2, 0, 8) == "other");
    CHECK(s.Remove(1).ok());
  }
  SECTION("allocate extends a chunk with zeros and sync succeeds") {
    REQUIRE(s.Allocate(3, 0, 0, 4096).ok());
    CHECK(ReadAll(s, 3, 0, 4096) == std::string(4096, '\0'));
    CHECK(s.Sync(3).ok());
  }
}

TEST_CASE("ChunkStore contract: memory", "[store]") {
  auto s = NewMemoryChunkStore();
  RunContract(*s);
}

TEST_CASE("ChunkStore contract: posix", "[store]") {
  char tmpl[] = "/tmp/bb-chunks-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    RunContract(**s);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("posix chunk store: many open chunks stay correct past the descriptor cache",
          "[store]") {
  char tmpl[] = "/tmp/bb-chunks-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    for (uint64_t i = 0; i < 3000; ++i) {
      REQUIRE((*s)->Write(42, i, 0, std::to_string(i)).ok());
    }
    for (uint64_t i = 0; i < 3000; i += 7) CHECK(ReadAll(**s, 42, i, 16) == std::to_string(i));
    CHECK((*s)->Sync(42).ok());
    REQUIRE((*s)->Remove(42).ok());
    CHECK_FALSE(std::filesystem::exists(dir + "/chunks/000000000000002a"));
  }
  std::filesystem::remove_all(dir);
}

bool EmptyWithin(const std::string& dir, int ms) {
  for (int i = 0; i < ms / 10; ++i) {
    if (std::filesystem::is_empty(dir)) return true;
    ::usleep(10000);
  }
  return std::filesystem::is_empty(dir);
}

TEST_CASE("posix chunk store reclaims removed files in the background and after a restart",
          "[store]") {
  char tmpl[] = "/tmp/bb-chunks-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    for (uint64_t f = 1; f <= 20; ++f) {
      for (uint64_t i = 0; i < 5; ++i) REQUIRE((*s)->Write(f, i, 0, std::string("x")).ok());
      REQUIRE((*s)->Remove(f).ok());
      CHECK(ReadAll(**s, f, 0, 4).empty());
    }
    CHECK(EmptyWithin(dir + "/chunks", 5000));
    REQUIRE((*s)->Write(99, 0, 0, std::string("y")).ok());
  }
  // A removal that a crash interrupted: the renamed folder is finished at the next start.
  std::filesystem::rename(dir + "/chunks/0000000000000063", dir + "/chunks/0000000000000063.del");
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    CHECK(EmptyWithin(dir + "/chunks", 5000));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("posix chunk store waits for removals to pause before it reclaims", "[store]") {
  char tmpl[] = "/tmp/bb-chunks-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    for (uint64_t f = 1; f <= 3; ++f) REQUIRE((*s)->Write(f, 0, 0, std::string("x")).ok());
    auto start = std::chrono::steady_clock::now();
    for (uint64_t f = 1; f <= 3; ++f) REQUIRE((*s)->Remove(f).ok());
    // Right after the burst the removed folders still wait (the pause is half a second)...
    bool waiting = std::filesystem::exists(dir + "/chunks/0000000000000003.del");
    if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(400)) CHECK(waiting);
    // ...and once it has passed they are gone, while the removed data never reads back.
    CHECK(ReadAll(**s, 3, 0, 4).empty());
    CHECK(EmptyWithin(dir + "/chunks", 5000));
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace bb::fs
