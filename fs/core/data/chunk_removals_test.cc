#include "fs/core/data/chunk_removals.h"

#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "fs/base/temp_dir.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using namespace std::chrono_literals;
using namespace testing;

struct Sent {
  std::mutex mu;
  std::vector<std::pair<NodeId, std::vector<uint64_t>>> batches;
  std::set<NodeId> down;
  ChunkRemovals::Send Sender() {
    return [this](NodeId n, const std::vector<uint64_t>& ids) {
      std::lock_guard lock(mu);
      batches.emplace_back(n, ids);
      return down.count(n) ? Status(ETIMEDOUT, "down") : Status::Ok();
    };
  }
};

TEST_CASE("chunk removals go one request per node for everything noted meanwhile", "[core]") {
  Sent sent;
  ChunkRemovals r(sent.Sender(), 0ms, 5);
  REQUIRE(r.Note(1, 10));
  REQUIRE(r.Note(2, 11));
  REQUIRE(r.Note(1, 12));
  CHECK(r.pending() == 3);
  CHECK(sent.batches.empty());  // no thread: nothing goes before Flush
  REQUIRE(r.Note(3, 13));
  REQUIRE(r.Note(3, 14));
  CHECK_FALSE(r.Note(3, 15));  // full: the caller removes it itself
  REQUIRE(r.Flush().ok());
  CHECK(sent.batches == std::vector<std::pair<NodeId, std::vector<uint64_t>>>{{1, {10, 12}}, {2, {11}}, {3, {13, 14}}});
  CHECK(r.pending() == 0);
  CHECK(r.counters().noted == 5);
  CHECK(r.counters().batches == 3);
  sent.down.insert(2);
  REQUIRE(r.Note(2, 16));
  REQUIRE(r.Note(2, 17));
  CHECK(r.Flush().code() == ETIMEDOUT);
  CHECK(r.counters().failed == 2);
}

TEST_CASE("chunk removals go within their interval, and at destruction", "[core]") {
  Sent sent;
  {
    ChunkRemovals r(sent.Sender(), 1ms, 100);
    REQUIRE(r.Note(1, 10));
    // pending() drops when the flusher takes the batch, before its send returns: wait for the send.
    auto sent_batches = [&] {
      std::lock_guard lock(sent.mu);
      return sent.batches.size();
    };
    for (int i = 0; i < 5000 && sent_batches() == 0; ++i) std::this_thread::sleep_for(1ms);
    CHECK(r.pending() == 0);
    CHECK(sent_batches() == 1);
  }
  {
    ChunkRemovals r(sent.Sender(), 0ms, 100);
    REQUIRE(r.Note(2, 20));
  }
  CHECK(sent.batches.back() == std::pair<NodeId, std::vector<uint64_t>>{2, {20}});
}

// The journal's removals, as (node, file id).
std::set<std::pair<NodeId, uint64_t>> Journaled(MetaStore& store) {
  std::set<std::pair<NodeId, uint64_t>> out;
  for (NodeId n = 0; n < 4; ++n) {
    for (uint64_t id = 0; id < 40; ++id) {
      if (store.Get(ChunkRemovals::JournalKey(n, id)).has_value()) out.insert({n, id});
    }
  }
  return out;
}

TEST_CASE("a journaled removal is kept from Note until its node confirms it", "[core]") {
  auto store = NewMemoryMetaStore();
  Sent sent;
  sent.down.insert(2);
  ChunkRemovals r(sent.Sender(), 0ms, 100, store.get());
  REQUIRE(r.Note(1, 10));
  REQUIRE(r.Note(2, 20));
  CHECK(Journaled(*store) == std::set<std::pair<NodeId, uint64_t>>{{1, 10}, {2, 20}});  // before any send
  CHECK(r.Flush().code() == ETIMEDOUT);
  CHECK(Journaled(*store) == std::set<std::pair<NodeId, uint64_t>>{{2, 20}});  // node 1 confirmed
  CHECK(r.retrying() == 1);
  // Not again before kRetryAfter, even with other removals going.
  REQUIRE(r.Note(3, 30));
  REQUIRE(r.Flush().ok());
  CHECK(sent.batches.back() == std::pair<NodeId, std::vector<uint64_t>>{3, {30}});
  CHECK(r.retrying() == 1);
  sent.down.clear();
  std::this_thread::sleep_for(ChunkRemovals::kRetryAfter + 10ms);
  REQUIRE(r.Flush().ok());
  CHECK(sent.batches.back() == std::pair<NodeId, std::vector<uint64_t>>{2, {20}});
  CHECK(r.retrying() == 0);
  CHECK(Journaled(*store).empty());
}

TEST_CASE("a failed removal is sent again by the flusher thread at its time, whatever went meanwhile", "[core]") {
  auto store = NewMemoryMetaStore();
  Sent sent;
  {
    std::lock_guard lock(sent.mu);
    sent.down.insert(2);
  }
  ChunkRemovals r(sent.Sender(), 1ms, 100, store.get());
  REQUIRE(r.Note(2, 20));
  for (int i = 0; i < 5000 && r.counters().failed == 0; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(r.counters().failed == 1);
  {
    std::lock_guard lock(sent.mu);
    sent.down.clear();
  }
  // A removal for another node goes before the retry is due: the retry still waits for its time.
  REQUIRE(r.Note(3, 30));
  for (int i = 0; i < 5000 && r.pending() > 0; ++i) std::this_thread::sleep_for(1ms);
  REQUIRE(r.pending() == 0);
  CHECK(r.retrying() == 1);
  // No more Note, no Flush: the thread sends it again once kRetryAfter passed.
  auto deadline = std::chrono::steady_clock::now() + ChunkRemovals::kRetryAfter + 5s;
  while (!Journaled(*store).empty() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  CHECK(Journaled(*store).empty());
  CHECK(r.retrying() == 0);
  std::lock_guard lock(sent.mu);
  REQUIRE(sent.batches.size() == 3);
  CHECK(sent.batches.back() == std::pair<NodeId, std::vector<uint64_t>>{2, {20}});
}

TEST_CASE("removals a stopped run did not send go with the next run's first flush, through LevelDB", "[core]") {
  TempDir dir("bb-chunk-rm");
  auto open = [&] {
    auto store = OpenLevelDbMetaStore(dir.path + "/meta");
    REQUIRE(store.has_value());
    return std::move(*store);
  };
  Sent sent;
  sent.down = {1, 2};
  {
    auto store = open();
    ChunkRemovals r(sent.Sender(), 0ms, 100, store.get());
    REQUIRE(r.Note(1, 11));
    REQUIRE(r.Note(2, 21));
    REQUIRE(r.Note(2, 22));
  }  // its last flush failed: as if killed before sending
  sent.down.clear();
  sent.batches.clear();
  {
    auto store = open();
    REQUIRE(Journaled(*store).size() == 3);
    ChunkRemovals r(sent.Sender(), 0ms, 100, store.get());
    CHECK(r.retrying() == 3);
    REQUIRE(r.Flush().ok());
    CHECK(Journaled(*store).empty());
  }
  CHECK(sent.batches == std::vector<std::pair<NodeId, std::vector<uint64_t>>>{{1, {11}}, {2, {21, 22}}});
  // With a flusher thread, they go without being asked.
  auto store = open();
  sent.down = {3};
  {
    ChunkRemovals r(sent.Sender(), 0ms, 100, store.get());
    REQUIRE(r.Note(3, 31));
  }
  sent.down.clear();
  ChunkRemovals r(sent.Sender(), 1ms, 100, store.get());
  for (int i = 0; i < 5000 && !Journaled(*store).empty(); ++i) std::this_thread::sleep_for(1ms);
  CHECK(Journaled(*store).empty());
}

TEST_CASE("a removal refused for capacity leaves nothing in the journal", "[core]") {
  Sent sent;
  auto store = NewMemoryMetaStore();
  ChunkRemovals full(sent.Sender(), 0ms, 1, store.get());
  REQUIRE(full.Note(1, 1));
  CHECK_FALSE(full.Note(1, 2));
  CHECK(Journaled(*store) == std::set<std::pair<NodeId, uint64_t>>{{1, 1}});  // none for the refused one
}

TEST_CASE("a removed one-chunk file's chunk on another node goes behind the unlink, larger files at once", "[core]") {
  FileSystemOptions o = Cluster::Defaults();
  o.chunk_removal_ms = 0;  // sent at statfs only: every step is deterministic
  Cluster c(4, o);
  auto write = [&](const std::string& name, size_t bytes) -> uint64_t {
    auto cr = c.fs(0).Create(kRootFileId, name, 0644, O_WRONLY, kUser);
    REQUIRE(cr.has_value());
    std::string data(bytes, 'x');
    REQUIRE(c.fs(0).Write(cr->second, 0, std::span<const char>(data)).has_value());
    REQUIRE(c.fs(0).Release(cr->second).ok());
    return cr->first.ino;
  };
  // Chunks of file `id` (of its first three) that node `node` holds, or every node.
  auto held_by = [&](size_t node, uint64_t id) {
    size_t n = 0;
    for (uint64_t index = 0; index < 3; ++index) {
      char byte;
      auto got = c.members[node].chunks->Read(id, kChunk, index, 0, std::span<char>(&byte, 1));
      n += got.has_value() && *got == 1;
    }
    return n;
  };
  auto chunks_held = [&](uint64_t id) {
    size_t n = 0;
    for (size_t node = 0; node < c.members.size(); ++node) n += held_by(node, id);
    return n;
  };
  // Names whose one chunk lies on another node than node 0, the remover.
  std::vector<uint64_t> small;
  for (int i = 0; small.size() < 8 && i < 200; ++i) {
    uint64_t id = write("s" + std::to_string(i), 100);
    if (held_by(0, id) == 0) {
      small.push_back(id);
      REQUIRE(c.fs(0).Unlink(kRootFileId, "s" + std::to_string(i)).ok());
    }
  }
  REQUIRE(small.size() == 8);
  for (uint64_t id : small) CHECK(chunks_held(id) == 1);  // still there: behind
  CHECK(c.fs(0).ChunkRemovalCounters().noted == 8);
  REQUIRE(c.fs(0).StatFs().has_value());  // df after rm: freed first
  for (uint64_t id : small) CHECK(chunks_held(id) == 0);
  CHECK(c.fs(0).ChunkRemovalCounters().batches <= 3);  // one per node, whatever the files

  uint64_t large = write("large", 3 * kChunk);
  REQUIRE(chunks_held(large) == 3);
  REQUIRE(c.fs(0).Unlink(kRootFileId, "large").ok());
  CHECK(chunks_held(large) == 0);  // at once
  CHECK(c.fs(0).ChunkRemovalCounters().noted == 8);
}

}  // namespace
}  // namespace bb::fs
