// fallocate on two in-process nodes: every chunk of the range is allocated on the node that holds
// it, the size follows unless FALLOC_FL_KEEP_SIZE, a node that fails is reported, chunks
// reserved past the size go with the file, and holes and zeroed ranges read as zeros everywhere.
#include <fcntl.h>
#include <linux/falloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

// A chunk store that counts allocations, can be made to refuse them, and notes the files whose
// chunks it was asked to remove or cut.
class CountingChunks : public testing::ForwardingChunkStore {
 public:
  using ForwardingChunkStore::ForwardingChunkStore;
  int allocations() const { return allocations_; }
  void Fail(bool on) { fail_ = on; }
  bool Freed(uint64_t file_id) {
    std::lock_guard lock(mu_);
    return freed_.contains(file_id);
  }

  Status Remove(uint64_t file_id) override {
    Note(file_id);
    return ForwardingChunkStore::Remove(file_id);
  }
  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    Note(file_id);
    return ForwardingChunkStore::Truncate(file_id, size, chunk_size);
  }

  int zeroed() const { return zeroed_; }
  Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    zeroed_++;
    return ForwardingChunkStore::Zero(file_id, chunk_size, index, offset, length);
  }

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    if (fail_) return Status(ENOSPC, "test store is full");
    allocations_++;
    return ForwardingChunkStore::Allocate(file_id, chunk_size, index, offset, length);
  }

 private:
  void Note(uint64_t file_id) {
    std::lock_guard lock(mu_);
    freed_.insert(file_id);
  }

  std::atomic<int> allocations_{0};
  std::atomic<int> zeroed_{0};
  std::atomic<bool> fail_{false};
  std::mutex mu_;
  std::set<uint64_t> freed_;
};

struct TwoNodes {
  TwoNodes()
      : cluster(2, Cluster::Defaults(), [this](uint32_t node) -> std::unique_ptr<ChunkStore> {
          auto counting = std::make_unique<CountingChunks>(NewMemoryChunkStore());
          stores[node] = counting.get();
          return counting;
        }) {}

  // An empty file "/f" created and held open on node 0.
  OpenFile* Create() {
    auto cr = cluster.fs(0).Create(kRootFileId, "f", 0644, O_RDWR, kUser);
    REQUIRE(cr.has_value());
    return cr->second;
  }
  uint64_t Size() { return Meta().size; }
  Metadata Meta() {
    auto e = cluster.fs(1).Lookup(kRootFileId, "f");
    REQUIRE(e.has_value());
    return e->md;
  }

  // The file's bytes [offset, offset + length) as node `node` reads them through an open of its own.
  std::string ReadOn(uint32_t node, uint64_t offset, uint64_t length) {
    auto f = cluster.fs(node).Open(Meta().file_id, O_RDONLY, kUser);
    REQUIRE(f.has_value());
    std::string buf(length, '?');
    auto n = cluster.fs(node).Read(*f, offset, {buf.data(), buf.size()});
    REQUIRE(n.has_value());
    buf.resize(*n);
    REQUIRE(cluster.fs(node).Release(*f).ok());
    return buf;
  }
  int Zeroed() { return stores[0]->zeroed() + stores[1]->zeroed(); }

  CountingChunks* stores[2] = {nullptr, nullptr};
  Cluster cluster;
};

TEST_CASE("fallocate allocates every chunk of the range on the node that holds it", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  constexpr int kChunks = 40;
  // From the middle of chunk 0 to the middle of chunk kChunks: kChunks + 1 chunks are touched.
  REQUIRE(t.cluster.fs(0).Fallocate(f, 0, kChunk / 2, uint64_t{kChunks} * kChunk).ok());
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() == kChunks + 1);
  CHECK(t.stores[0]->allocations() > 0);  // hashing spreads 41 chunks over both nodes
  CHECK(t.stores[1]->allocations() > 0);
  CHECK(t.Size() == kChunk / 2 + uint64_t{kChunks} * kChunk);  // seen from the other node

  // A range inside one chunk (run on the calling thread) allocates that chunk only.
  int before = t.stores[0]->allocations() + t.stores[1]->allocations();
  REQUIRE(t.cluster.fs(0).Fallocate(f, 0, uint64_t{kChunks + 3} * kChunk + 10, 100).ok());
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() == before + 1);
  CHECK(t.Size() == uint64_t{kChunks + 3} * kChunk + 110);

  // The range reads back as zeros.
  std::string buf(kChunk * 3, 'x');
  auto n = t.cluster.fs(0).Read(f, kChunk, {buf.data(), buf.size()});
  REQUIRE(n.has_value());
  CHECK(*n == buf.size());
  CHECK(buf == std::string(buf.size(), '\0'));
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("fallocate with FALLOC_FL_KEEP_SIZE leaves the size", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  REQUIRE(t.cluster.fs(0).Write(f, 0, {"abc", 3}).has_value());
  REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 8 * kChunk).ok());
  REQUIRE(t.cluster.fs(0).Flush(f).ok());
  CHECK(t.Size() == 3);
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() == 8);
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("fallocate refuses modes it does not implement", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  for (int mode : {FALLOC_FL_COLLAPSE_RANGE, FALLOC_FL_INSERT_RANGE, FALLOC_FL_PUNCH_HOLE,
                   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE}) {
    INFO(mode);
    CHECK(t.cluster.fs(0).Fallocate(f, mode, 0, kChunk).code() == EOPNOTSUPP);
  }
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() + t.Zeroed() == 0);
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("a hole punched across chunks of both nodes reads as zeros everywhere and keeps the size", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  const std::string data(6 * kChunk, 'd');
  REQUIRE(t.cluster.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  REQUIRE(t.cluster.fs(0).Flush(f).ok());
  int64_t written_ns = t.Meta().mtime_ns;
  t.cluster.clock.Advance(1'000'000'000);
  // From the middle of chunk 0 to the middle of chunk 4: five chunks, on both nodes.
  REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, kChunk / 2, 4 * kChunk).ok());
  CHECK(t.Zeroed() == 5);
  CHECK(t.stores[0]->zeroed() > 0);
  CHECK(t.stores[1]->zeroed() > 0);
  Metadata md = t.Meta();
  CHECK(md.size == 6 * kChunk);
  CHECK(md.mtime_ns > written_ns);  // a hole is a change of the data
  std::string want = std::string(kChunk / 2, 'd') + std::string(4 * kChunk, '\0') + std::string(3 * kChunk / 2, 'd');
  CHECK(t.ReadOn(1, 0, 6 * kChunk) == want);
  CHECK(t.ReadOn(0, 0, 6 * kChunk) == want);
  // A hole past all the file holds asks no node.
  REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 8 * kChunk, 4 * kChunk).ok());
  CHECK(t.Zeroed() == 5);
  CHECK(t.Meta().size == 6 * kChunk);
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("FALLOC_FL_ZERO_RANGE zeroes and reserves the range, and grows the size unless KEEP_SIZE", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  const std::string data(2 * kChunk, 'z');
  REQUIRE(t.cluster.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_ZERO_RANGE, kChunk, 2 * kChunk).ok());
  CHECK(t.Zeroed() == 2);
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() == 2);
  CHECK(t.Meta().size == 3 * kChunk);
  CHECK(t.ReadOn(1, 0, 3 * kChunk) == std::string(kChunk, 'z') + std::string(2 * kChunk, '\0'));
  REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 5 * kChunk).ok());
  Metadata md = t.Meta();
  CHECK(md.size == 3 * kChunk);
  CHECK(md.alloc_end == 5 * kChunk);  // reserved past the size: its removal finds them
  CHECK(t.ReadOn(1, 0, 3 * kChunk) == std::string(3 * kChunk, '\0'));
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("fallocate reports a node that cannot allocate and keeps the size", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  t.stores[1]->Fail(true);
  Status s = t.cluster.fs(0).Fallocate(f, 0, 0, 40 * kChunk);
  CHECK(s.code() == ENOSPC);
  CHECK(t.Size() == 0);
  t.stores[1]->Fail(false);
  REQUIRE(t.cluster.fs(0).Fallocate(f, 0, 0, 40 * kChunk).ok());
  CHECK(t.Size() == 40 * kChunk);
  REQUIRE(t.cluster.fs(0).Release(f).ok());
}

TEST_CASE("chunks fallocate reserved past the size go with the file", "[fallocate]") {
  TwoNodes t;
  OpenFile* f = t.Create();
  SECTION("with FALLOC_FL_KEEP_SIZE, freed by its removal on every node that holds them") {
    REQUIRE(t.cluster.fs(0).Write(f, 0, {"abc", 3}).has_value());
    REQUIRE(t.cluster.fs(0).Fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 8 * kChunk).ok());
    REQUIRE(t.cluster.fs(0).Release(f).ok());
    Metadata md = t.Meta();
    CHECK(md.size == 3);
    CHECK(md.alloc_end == 8 * kChunk);  // the owner knows how far they reach
    REQUIRE(t.stores[0]->allocations() > 0);
    REQUIRE(t.stores[1]->allocations() > 0);  // one of the two holds chunks past the size only
    REQUIRE(t.cluster.fs(1).Unlink(kRootFileId, "f").ok());
    CHECK(t.stores[0]->Freed(md.file_id));
    CHECK(t.stores[1]->Freed(md.file_id));
  }
  SECTION("by a call that failed halfway, freed by a truncation to 0") {
    t.stores[1]->Fail(true);
    CHECK(t.cluster.fs(0).Fallocate(f, 0, 0, 40 * kChunk).code() == ENOSPC);
    REQUIRE(t.stores[0]->allocations() > 0);  // node 0 allocated its share before the refusal
    Metadata md = t.Meta();
    CHECK(md.size == 0);
    CHECK(md.alloc_end == 40 * kChunk);
    SetAttrRequest cut;
    cut.size = 0;
    REQUIRE(t.cluster.fs(1).SetAttr(md.file_id, cut, nullptr).has_value());
    CHECK(t.stores[0]->Freed(md.file_id));
    REQUIRE(t.cluster.fs(0).Release(f).ok());
  }
}

}  // namespace
}  // namespace bb::fs
