// One contract, run against every ChunkStore implementation.
#include "fs/store/chunk_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fs/base/temp_dir.h"
#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

std::string ReadAll(ChunkStore& s, uint64_t chunk_size, uint64_t id, uint64_t idx, size_t n, uint64_t off = 0) {
  std::string buf(n, 'X');
  auto got = s.Read(id, chunk_size, idx, off, {buf.data(), n});
  REQUIRE(got.has_value());
  buf.resize(*got);
  return buf;
}

// A hole reads as nothing or as zeros (the contract allows both).
bool Hole(const std::string& bytes) { return bytes.find_first_not_of('\0') == std::string::npos; }

void RunContract(ChunkStore& s) {
  SECTION("missing chunk reads as nothing") { CHECK(ReadAll(s, 64, 7, 0, 16).empty()); }
  SECTION("write then read at offsets, gaps are zeros") {
    REQUIRE(s.Write(7, 64, 0, 0, std::string("hello")).ok());
    REQUIRE(s.Write(7, 64, 0, 10, std::string("world")).ok());
    CHECK(ReadAll(s, 64, 7, 0, 64) == std::string("hello\0\0\0\0\0world", 15));
    CHECK(ReadAll(s, 64, 7, 0, 3, 12) == "rld");
    CHECK(ReadAll(s, 64, 7, 1, 10).empty());
  }
  SECTION("a range beyond its chunk is refused and stores nothing") {
    CHECK(s.Write(7, 64, 0, 60, std::string("hello")).code() == EINVAL);
    CHECK(s.Write(7, 0, 0, 0, std::string("x")).code() == EINVAL);
    CHECK(s.Allocate(7, 64, 1, 32, 64).code() == EINVAL);
    std::string buf(65, 'X');
    CHECK(s.Read(7, 64, 0, 0, {buf.data(), buf.size()}).error().code() == EINVAL);
    CHECK(ReadAll(s, 64, 7, 0, 64).empty());
  }
  SECTION("truncate drops chunks at and past the size and shortens the spanning one") {
    for (uint64_t i = 0; i < 4; ++i) REQUIRE(s.Write(9, 8, i, 0, std::string(8, 'a' + i)).ok());
    REQUIRE(s.Truncate(9, 8 + 3, 8).ok());  // keeps chunk 0 and 3 bytes of chunk 1
    CHECK(ReadAll(s, 8, 9, 0, 8) == "aaaaaaaa");
    CHECK(ReadAll(s, 8, 9, 1, 8) == "bbb");
    CHECK(ReadAll(s, 8, 9, 2, 8).empty());
    CHECK(ReadAll(s, 8, 9, 3, 8).empty());
  }
  SECTION("truncate of many chunks, then a write past the cut: the cut-off part stays a hole") {
    for (uint64_t i = 0; i < 40; ++i) REQUIRE(s.Write(4, 8, i, 0, std::string(8, 'A' + i)).ok());
    REQUIRE(s.Truncate(4, 8 * 13 + 3, 8).ok());
    for (uint64_t i = 0; i < 13; ++i) CHECK(ReadAll(s, 8, 4, i, 8) == std::string(8, 'A' + i));
    CHECK(ReadAll(s, 8, 4, 13, 8) == std::string(3, 'A' + 13));
    for (uint64_t i = 14; i < 40; ++i) CHECK(ReadAll(s, 8, 4, i, 8).empty());
    REQUIRE(s.Write(4, 8, 30, 0, std::string("new")).ok());
    for (uint64_t i = 14; i < 30; ++i) CHECK(Hole(ReadAll(s, 8, 4, i, 8)));
    CHECK(ReadAll(s, 8, 4, 13, 8).substr(0, 3) == std::string(3, 'A' + 13));
    CHECK(Hole(ReadAll(s, 8, 4, 13, 8).substr(3)));
    CHECK(ReadAll(s, 8, 4, 30, 8) == "new");
  }
  SECTION("remove drops every chunk of one file only") {
    REQUIRE(s.Write(1, 64, 0, 0, std::string("one")).ok());
    REQUIRE(s.Write(1, 64, 5, 0, std::string("five")).ok());
    REQUIRE(s.Write(2, 64, 0, 0, std::string("other")).ok());
    REQUIRE(s.Remove(1).ok());
    CHECK(ReadAll(s, 64, 1, 0, 8).empty());
    CHECK(ReadAll(s, 64, 1, 5, 8).empty());
    CHECK(ReadAll(s, 64, 2, 0, 8) == "other");
    CHECK(s.Remove(1).ok());
  }
  SECTION("zero reads back as zeros within what the chunk holds and makes nothing past it") {
    REQUIRE(s.Write(6, 64, 0, 0, std::string(40, 'x')).ok());
    REQUIRE(s.Write(6, 64, 1, 0, std::string(64, 'y')).ok());
    REQUIRE(s.Zero(6, 64, 0, 10, 54).ok());  // past the 40 bytes held: no bytes appear
    CHECK(ReadAll(s, 64, 6, 0, 64) == std::string(10, 'x') + std::string(30, '\0'));
    REQUIRE(s.Zero(6, 64, 1, 0, 8).ok());
    CHECK(ReadAll(s, 64, 6, 1, 64) == std::string(8, '\0') + std::string(56, 'y'));
    CHECK(s.Zero(6, 64, 9, 0, 64).ok());  // a missing chunk: nothing to do
    CHECK(ReadAll(s, 64, 6, 9, 64).empty());
    CHECK(s.Zero(6, 64, 0, 60, 8).code() == EINVAL);
  }
  SECTION("allocate extends a chunk with zeros and sync succeeds") {
    REQUIRE(s.Allocate(3, 4096, 0, 0, 4096).ok());
    CHECK(ReadAll(s, 4096, 3, 0, 4096) == std::string(4096, '\0'));
    CHECK(s.Sync(3).ok());
  }
}

TEST_CASE("ChunkStore contract: memory", "[store]") {
  auto s = NewMemoryChunkStore();
  RunContract(*s);
}

TEST_CASE("ChunkStore contract: posix", "[store]") {
  TempDir tmp("bb-chunks");
  const std::string& dir = tmp.path;
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    RunContract(**s);
  }
}

// One contract per test case: Catch2 runs each of a case's sections once, by name and place, so a
// second RunContract in the same case would run none of its own.
TEST_CASE("ChunkStore contract: small chunks in a MetaStore, over memory", "[store]") {
  auto kv = NewMemoryMetaStore();
  auto over_memory = NewInlineChunkStore(NewMemoryChunkStore(), kv.get(), nullptr);
  RunContract(*over_memory);
}

TEST_CASE("ChunkStore contract: small chunks in a MetaStore, over posix", "[store]") {
  TempDir tmp("bb-chunks");
  auto kv2 = NewMemoryMetaStore();
  auto over_posix = OpenPosixChunkStore(tmp.path, 0, 1024, kv2.get());
  REQUIRE(over_posix.has_value());
  RunContract(**over_posix);
}

bool HasFolder(const std::string& root, uint64_t id) {
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(id));
  return std::filesystem::exists(root + "/chunks/" + name);
}

size_t InlineValues(MetaStore& kv) { return kv.Scan("Sinline/", "", 1000)->size(); }

TEST_CASE("a small file's chunk 0 is a MetaStore value, and moves to its segment once it grows past the bound",
          "[store]") {
  TempDir tmp("bb-chunks");
  auto kv = NewMemoryMetaStore();
  auto s = OpenPosixChunkStore(tmp.path, 0, 1024, kv.get());
  REQUIRE(s.has_value());
  ChunkStore& c = **s;
  constexpr uint64_t kChunk = 65536;
  std::string small(3901, 's');
  REQUIRE(c.Write(1, kChunk, 0, 0, small).ok());
  CHECK(InlineValues(*kv) == 1);
  CHECK_FALSE(HasFolder(tmp.path, 1));  // no folder, no segment file
  CHECK(ReadAll(c, kChunk, 1, 0, kChunk) == small);
  REQUIRE(c.Write(1, kChunk, 0, 5000, std::string("tail")).ok());  // a hole between, still small
  CHECK(ReadAll(c, kChunk, 1, 0, kChunk) == small + std::string(5000 - 3901, '\0') + "tail");
  CHECK_FALSE(HasFolder(tmp.path, 1));
  // Past the bound: the bytes move to the segment, with the new ones.
  REQUIRE(c.Write(1, kChunk, 0, kInlineChunkMax, std::string("far")).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(HasFolder(tmp.path, 1));
  std::string whole = ReadAll(c, kChunk, 1, 0, kChunk);
  CHECK(whole.substr(0, 3901) == small);
  CHECK(whole.substr(5000, 4) == "tail");
  CHECK(whole.substr(kInlineChunkMax, 3) == "far");
  // Now in the segment, small writes stay there.
  REQUIRE(c.Write(1, kChunk, 0, 0, std::string("S")).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(ReadAll(c, kChunk, 1, 0, 2) == "Ss");
  // A file whose later chunk came first keeps chunk 0 in its segment too (the segment holds it).
  REQUIRE(c.Write(2, 8, 8, 0, std::string("eight")).ok());
  REQUIRE(c.Write(2, 8, 0, 0, std::string("zero")).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(ReadAll(c, 8, 2, 0, 4) == "zero");
  CHECK(ReadAll(c, 8, 2, 8, 8) == "eight");
  // Other chunks of a small file go to segments; chunk 0 stays a value.
  REQUIRE(c.Write(3, kChunk, 0, 0, std::string("head")).ok());
  REQUIRE(c.Write(3, kChunk, 2, 0, std::string("two")).ok());
  CHECK(InlineValues(*kv) == 1);
  CHECK(ReadAll(c, kChunk, 3, 0, 8) == "head");
  CHECK(ReadAll(c, kChunk, 3, 2, 8) == "two");
  // Truncate shortens the value, to nothing at 0; remove drops it.
  REQUIRE(c.Truncate(3, 2, kChunk).ok());
  CHECK(ReadAll(c, kChunk, 3, 0, 8) == "he");
  CHECK(ReadAll(c, kChunk, 3, 2, 8).empty());
  REQUIRE(c.Truncate(3, 0, kChunk).ok());
  CHECK(InlineValues(*kv) == 0);
  REQUIRE(c.Write(4, kChunk, 0, 0, small).ok());
  REQUIRE(c.Sync(4).ok());
  REQUIRE(c.Remove(4).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(ReadAll(c, kChunk, 4, 0, 8).empty());
  // An allocation reserves space on the backing store: chunk 0 moves there first.
  REQUIRE(c.Write(5, kChunk, 0, 0, std::string("keep")).ok());
  REQUIRE(c.Allocate(5, kChunk, 0, 0, 4096).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(ReadAll(c, kChunk, 5, 0, 4) == "keep");
}

// A MetaStore that counts its syncs.
class SyncCounting final : public MetaStore {
 public:
  Result<std::string> Get(std::string_view key) override { return inner_->Get(key); }
  Status Write(const WriteBatch& batch, bool sync) override { return inner_->Write(batch, sync); }
  Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after, size_t limit) override {
    return inner_->Scan(prefix, start_after, limit);
  }
  Status Sync() override {
    ++syncs;
    return inner_->Sync();
  }
  int syncs = 0;

 private:
  std::unique_ptr<MetaStore> inner_ = NewMemoryMetaStore();
};

// A large store that notes, at each sync, how many inline values the MetaStore still held.
class SyncNoting final : public ChunkStore {
 public:
  explicit SyncNoting(MetaStore* kv) : kv_(kv) {}
  Status Write(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, std::span<const char> data) override {
    return inner_->Write(id, cs, index, offset, data);
  }
  Result<size_t> Read(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, std::span<char> out) override {
    return inner_->Read(id, cs, index, offset, out);
  }
  Status Allocate(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Allocate(id, cs, index, offset, length);
  }
  Status Zero(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Zero(id, cs, index, offset, length);
  }
  Status Truncate(uint64_t id, uint64_t size, uint64_t cs) override { return inner_->Truncate(id, size, cs); }
  Status Remove(uint64_t id) override { return inner_->Remove(id); }
  Status Sync(uint64_t id) override {
    values_at_sync.push_back(InlineValues(*kv_));
    return inner_->Sync(id);
  }
  std::vector<size_t> values_at_sync;

 private:
  MetaStore* const kv_;
  std::unique_ptr<ChunkStore> inner_ = NewMemoryChunkStore();
};

TEST_CASE(
    "chunk 0 moving to its segment is synced there while its value still stands, and a sync makes a "
    "removed value's removal last",
    "[store]") {
  SyncCounting kv;
  auto large = std::make_unique<SyncNoting>(&kv);
  SyncNoting* noted = large.get();
  auto c = NewInlineChunkStore(std::move(large), &kv, nullptr);
  constexpr uint64_t kChunk = 65536;
  REQUIRE(c->Write(1, kChunk, 0, 0, std::string(100, 'a')).ok());
  REQUIRE(c->Sync(1).ok());  // the value is durable now
  noted->values_at_sync.clear();
  REQUIRE(c->Write(1, kChunk, 0, kInlineChunkMax, std::string("past")).ok());  // moves
  CHECK(InlineValues(kv) == 0);
  CHECK(noted->values_at_sync == std::vector<size_t>{1});  // synced in the segment before the value went
  int syncs = kv.syncs;
  REQUIRE(c->Sync(1).ok());  // no value left: its removal is synced all the same
  CHECK(kv.syncs == syncs + 1);
  CHECK(ReadAll(*c, kChunk, 1, 0, 100) == std::string(100, 'a'));
}

// A large store whose writes fail with ENOSPC while `full` is set.
class FullWhenTold final : public ChunkStore {
 public:
  Status Write(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, std::span<const char> data) override {
    if (full) return Status(ENOSPC, "full");
    return inner_->Write(id, cs, index, offset, data);
  }
  Result<size_t> Read(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, std::span<char> out) override {
    return inner_->Read(id, cs, index, offset, out);
  }
  Status Allocate(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, uint64_t length) override {
    if (full) return Status(ENOSPC, "full");
    return inner_->Allocate(id, cs, index, offset, length);
  }
  Status Zero(uint64_t id, uint64_t cs, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Zero(id, cs, index, offset, length);
  }
  Status Truncate(uint64_t id, uint64_t size, uint64_t cs) override { return inner_->Truncate(id, size, cs); }
  Status Remove(uint64_t id) override { return inner_->Remove(id); }
  Status Sync(uint64_t id) override { return inner_->Sync(id); }
  bool full = false;

 private:
  std::unique_ptr<ChunkStore> inner_ = NewMemoryChunkStore();
};

TEST_CASE(
    "the inline bound is exact, every value written is checked for room in full, and a refused write or move "
    "keeps the value",
    "[store]") {
  auto kv = NewMemoryMetaStore();
  auto large = std::make_unique<FullWhenTold>();
  FullWhenTold* backing = large.get();
  std::vector<uint64_t> asked;
  bool room = true;
  auto c = NewInlineChunkStore(std::move(large), kv.get(), [&](uint64_t bytes) {
    asked.push_back(bytes);
    return room ? Status::Ok() : Status(ENOSPC, "no room");
  });
  constexpr uint64_t kChunk = 65536;
  std::string full(kInlineChunkMax, 'f');

  // kInlineChunkMax bytes stay a value; one more byte moves them.
  REQUIRE(c->Write(1, kChunk, 0, 0, full).ok());
  CHECK(InlineValues(*kv) == 1);
  CHECK(asked == std::vector<uint64_t>{kInlineChunkMax});
  // A file's first write of kInlineChunkMax + 1 bytes never becomes a value.
  REQUIRE(c->Write(2, kChunk, 0, 0, full + "g").ok());
  CHECK(InlineValues(*kv) == 1);
  CHECK(asked.size() == 1);  // the large store checks its own writes

  // A one-byte rewrite puts all 8 KiB in the log again: all of it is asked for.
  asked.clear();
  REQUIRE(c->Write(1, kChunk, 0, 0, std::string("F")).ok());
  CHECK(asked == std::vector<uint64_t>{kInlineChunkMax});

  // No room: the write is refused and the value stays as it was.
  room = false;
  Status refused = c->Write(1, kChunk, 0, 1, std::string("xyz"));
  CHECK(refused.code() == ENOSPC);
  CHECK(ReadAll(*c, kChunk, 1, 0, kChunk) == "F" + full.substr(1));
  room = true;

  // A move the large store refuses leaves the value, and the file's bytes, where they were.
  backing->full = true;
  CHECK(c->Write(1, kChunk, 0, kInlineChunkMax, std::string("+")).code() == ENOSPC);
  CHECK(c->Allocate(1, kChunk, 0, 0, kChunk).code() == ENOSPC);
  CHECK(InlineValues(*kv) == 1);
  CHECK(ReadAll(*c, kChunk, 1, 0, kChunk) == "F" + full.substr(1));
  backing->full = false;
  REQUIRE(c->Write(1, kChunk, 0, kInlineChunkMax, std::string("+")).ok());
  CHECK(InlineValues(*kv) == 0);
  CHECK(ReadAll(*c, kChunk, 1, 0, kChunk) == "F" + full.substr(1) + "+");
  REQUIRE(c->Sync(1).ok());
}

TEST_CASE("threads writing chunk 0 of one small file at once, one of them past the bound, all land", "[store]") {
  TempDir tmp("bb-chunks");
  auto kv = NewMemoryMetaStore();
  auto s = OpenPosixChunkStore(tmp.path, 0, 1024, kv.get());
  REQUIRE(s.has_value());
  constexpr uint64_t kChunk = 65536, kPiece = 64, kThreads = 8, kEach = 32;  // 16 KiB in all
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kEach; ++i) {
        uint64_t at = (i * kThreads + t) * kPiece;  // interleaved pieces, crossing the bound midway
        if (!(*s)->Write(7, kChunk, 0, at, std::string(kPiece, static_cast<char>('a' + t))).ok()) failed++;
        std::string back(kPiece, '\0');
        if (!(*s)->Read(7, kChunk, 0, at, {back.data(), back.size()}).has_value()) failed++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  std::string all = ReadAll(**s, kChunk, 7, 0, kThreads * kEach * kPiece);
  REQUIRE(all.size() == kThreads * kEach * kPiece);
  for (uint64_t p = 0; p < kThreads * kEach; ++p) {
    CHECK(all.substr(p * kPiece, kPiece) == std::string(kPiece, static_cast<char>('a' + p % kThreads)));
  }
  CHECK(InlineValues(*kv) == 0);  // it grew past the bound
}

TEST_CASE("small chunks outlive a restart, and a plain folder is taken over while the other layout is refused",
          "[store]") {
  TempDir tmp("bb-chunks");
  {
    auto plain = OpenPosixChunkStore(tmp.path, 0);
    REQUIRE(plain.has_value());
    REQUIRE((*plain)->Write(1, 4096, 0, 0, std::string(5000 % 4096, 'p')).ok());
  }
  {
    auto kv = OpenLevelDbMetaStore(tmp.path + "/meta");
    REQUIRE(kv.has_value());
    auto s = OpenPosixChunkStore(tmp.path, 0, 1024, kv->get());
    REQUIRE(s.has_value());
    CHECK(ReadAll(**s, 4096, 1, 0, 4096) == std::string(5000 % 4096, 'p'));  // written before: a segment
    REQUIRE((*s)->Write(2, 4096, 0, 0, std::string("small")).ok());
  }
  auto kv = OpenLevelDbMetaStore(tmp.path + "/meta");
  REQUIRE(kv.has_value());
  auto s = OpenPosixChunkStore(tmp.path, 0, 1024, kv->get());
  REQUIRE(s.has_value());
  CHECK(ReadAll(**s, 4096, 2, 0, 4096) == "small");
  CHECK(InlineValues(**kv) == 1);
  s->reset();
  auto without = OpenPosixChunkStore(tmp.path, 0);  // would not see the values
  REQUIRE_FALSE(without.has_value());
  CHECK_THAT(without.error().message(), Catch::Contains("small in meta"));
}

size_t Entries(const std::string& dir) {
  size_t n = 0;
  for (auto& e : std::filesystem::directory_iterator(dir)) n += e.path().filename() != "LAYOUT";
  return n;
}

// Nothing but the LAYOUT file left in `dir` within `ms`.
bool EmptyWithin(const std::string& dir, int ms) {
  for (int i = 0; i < ms / 10; ++i) {
    if (Entries(dir) == 0) return true;
    ::usleep(10000);
  }
  return Entries(dir) == 0;
}

TEST_CASE("posix chunk store: many open files stay correct past the descriptor cache", "[store]") {
  TempDir dir("bb-chunks");
  auto s = OpenPosixChunkStore(dir.path, 0, /*max_open=*/64);
  REQUIRE(s.has_value());
  for (uint64_t f = 1; f <= 300; ++f) {
    for (uint64_t i = 0; i < 3; ++i) REQUIRE((*s)->Write(f, 64, i * 7, 0, std::to_string(f * i)).ok());
  }
  for (uint64_t f = 1; f <= 300; f += 7) {
    for (uint64_t i = 0; i < 3; ++i) CHECK(ReadAll(**s, 64, f, i * 7, 16) == std::to_string(f * i));
  }
  CHECK((*s)->Sync(42).ok());
  REQUIRE((*s)->Remove(42).ok());
  CHECK_FALSE(std::filesystem::exists(dir.path + "/chunks/000000000000002a"));
}

TEST_CASE("posix chunk store keeps a file's chunks in a few segment files", "[store]") {
  TempDir dir("bb-chunks");
  auto s = OpenPosixChunkStore(dir.path, 0);
  REQUIRE(s.has_value());
  constexpr uint64_t kChunk = 4096;
  for (uint64_t i = 0; i < 20; ++i) REQUIRE((*s)->Write(5, kChunk, i, 0, std::string(kChunk, 'a' + i)).ok());
  std::string folder = dir.path + "/chunks/0000000000000005";
  CHECK(Entries(folder) == kChunkSegments);
  for (uint64_t seg = 0; seg < kChunkSegments; ++seg) {
    // Segment s holds chunks s, s + 8, s + 16, ... back to back.
    uint64_t chunks = seg < 20 % kChunkSegments ? 3 : 2;
    CHECK(std::filesystem::file_size(folder + "/" + std::to_string(seg)) == chunks * kChunk);
  }
  for (uint64_t i = 0; i < 20; ++i) CHECK(ReadAll(**s, kChunk, 5, i, kChunk) == std::string(kChunk, 'a' + i));
}

TEST_CASE("posix chunk store: zeroing a chunk gives its blocks back", "[store]") {
  TempDir dir("bb-chunks");
  auto s = OpenPosixChunkStore(dir.path, 0);
  REQUIRE(s.has_value());
  constexpr uint64_t kChunk = 1 << 20;
  REQUIRE((*s)->Write(5, kChunk, 0, 0, std::string(kChunk, 'a')).ok());
  std::string segment = dir.path + "/chunks/0000000000000005/0";
  auto blocks = [&] {
    struct stat st {};
    REQUIRE(::stat(segment.c_str(), &st) == 0);
    return st.st_blocks;
  };
  blkcnt_t before = blocks();
  REQUIRE((*s)->Zero(5, kChunk, 0, 4096, kChunk - 8192).ok());
  CHECK(blocks() < before / 2);
  CHECK(std::filesystem::file_size(segment) == kChunk);
  std::string back = ReadAll(**s, kChunk, 5, 0, kChunk);
  CHECK(back == std::string(4096, 'a') + std::string(kChunk - 8192, '\0') + std::string(4096, 'a'));
}

TEST_CASE("posix chunk store: threads writing chunks of one file at once all land", "[store]") {
  TempDir dir("bb-chunks");
  auto s = OpenPosixChunkStore(dir.path, 0);
  REQUIRE(s.has_value());
  constexpr uint64_t kChunk = 4096;
  constexpr uint64_t kThreads = 8, kEach = 64;
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Thread t writes chunks t*64 .. t*64+63: every segment gets writes from every thread.
      for (uint64_t i = t * kEach; i < (t + 1) * kEach; ++i) {
        std::string data(kChunk, static_cast<char>('A' + i % 50));
        data.replace(0, std::to_string(i).size(), std::to_string(i));
        if (!(*s)->Write(6, kChunk, i, 0, data).ok()) failed++;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failed == 0);
  for (uint64_t i = 0; i < kThreads * kEach; ++i) {
    std::string want(kChunk, static_cast<char>('A' + i % 50));
    want.replace(0, std::to_string(i).size(), std::to_string(i));
    CHECK(ReadAll(**s, kChunk, 6, i, kChunk) == want);
  }
}

TEST_CASE("bytes a segment keeps below a size match a chunk-by-chunk count", "[store]") {
  for (uint64_t chunk : {1, 8, 4096}) {
    for (uint64_t size = 0; size < 40 * chunk; size += (chunk > 8 ? 997 : 1)) {
      for (uint64_t seg = 0; seg < kChunkSegments; ++seg) {
        uint64_t expect = 0;
        // Chunks seg, seg + 8, ... sit back to back in the segment: the k-th at k x chunk.
        for (uint64_t i = seg, k = 0; i * chunk < size; i += kChunkSegments, ++k) {
          expect = k * chunk + std::min(chunk, size - i * chunk);
        }
        INFO("chunk " << chunk << " size " << size << " segment " << seg);
        CHECK(SegmentBytesBelow(size, chunk, seg) == expect);
      }
    }
  }
}

TEST_CASE("posix chunk store refuses a folder of another layout and changes nothing there", "[store]") {
  TempDir dir("bb-chunks");
  std::filesystem::create_directories(dir.path + "/chunks/0000000000000001");
  {
    std::ofstream old(dir.path + "/chunks/0000000000000001/5");
    old << "chunk 5 in a file of its own";
  }
  auto s = OpenPosixChunkStore(dir.path, 0);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().code() == EINVAL);
  CHECK_THAT(s.error().message(), Catch::Contains("older version") && Catch::Contains(dir.path + "/chunks"));
  CHECK_FALSE(std::filesystem::exists(dir.path + "/chunks/LAYOUT"));
  CHECK(std::filesystem::file_size(dir.path + "/chunks/0000000000000001/5") == 28);

  TempDir other("bb-chunks");
  std::filesystem::create_directories(other.path + "/chunks");
  std::ofstream(other.path + "/chunks/LAYOUT") << "segments 16\n";
  auto t = OpenPosixChunkStore(other.path, 0);
  REQUIRE_FALSE(t.has_value());
  CHECK_THAT(t.error().message(), Catch::Contains("\"segments 16\""));

  // A fresh folder is marked, and opens again.
  TempDir fresh("bb-chunks");
  REQUIRE(OpenPosixChunkStore(fresh.path, 0).has_value());
  CHECK(std::filesystem::exists(fresh.path + "/chunks/LAYOUT"));
  CHECK(OpenPosixChunkStore(fresh.path, 0).has_value());
}

TEST_CASE("posix chunk store reclaims removed files in the background and after a restart", "[store]") {
  TempDir tmp("bb-chunks");
  const std::string& dir = tmp.path;
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    for (uint64_t f = 1; f <= 20; ++f) {
      for (uint64_t i = 0; i < 5; ++i) REQUIRE((*s)->Write(f, 64, i, 0, std::string("x")).ok());
      REQUIRE((*s)->Remove(f).ok());
      CHECK(ReadAll(**s, 64, f, 0, 4).empty());
    }
    CHECK(EmptyWithin(dir + "/chunks", 5000));
    REQUIRE((*s)->Write(99, 64, 0, 0, std::string("y")).ok());
  }
  // A removal that a crash interrupted: the renamed folder is finished at the next start.
  std::filesystem::rename(dir + "/chunks/0000000000000063", dir + "/chunks/0000000000000063.del");
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    CHECK(EmptyWithin(dir + "/chunks", 5000));
  }
}

TEST_CASE("posix chunk store waits for removals to pause before it reclaims", "[store]") {
  TempDir tmp("bb-chunks");
  const std::string& dir = tmp.path;
  {
    auto s = OpenPosixChunkStore(dir, 0);
    REQUIRE(s.has_value());
    for (uint64_t f = 1; f <= 3; ++f) REQUIRE((*s)->Write(f, 64, 0, 0, std::string("x")).ok());
    auto start = std::chrono::steady_clock::now();
    for (uint64_t f = 1; f <= 3; ++f) REQUIRE((*s)->Remove(f).ok());
    // Right after the burst the removed folders still wait (the pause is half a second)...
    bool waiting = std::filesystem::exists(dir + "/chunks/0000000000000003.del");
    if (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(400)) CHECK(waiting);
    // ...and once it has passed they are gone, while the removed data never reads back.
    CHECK(ReadAll(**s, 64, 3, 0, 4).empty());
    CHECK(EmptyWithin(dir + "/chunks", 5000));
  }
}

}  // namespace
}  // namespace bb::fs
