// fallocate on two in-process nodes: every chunk of the range is allocated on the node that holds
// it, the size follows unless FALLOC_FL_KEEP_SIZE, and a node that fails is reported.
#include <fcntl.h>
#include <linux/falloc.h>

#include <atomic>
#include <catch2/catch.hpp>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

// A chunk store that counts allocations and can be made to refuse them.
class CountingChunks : public testing::ForwardingChunkStore {
 public:
  using ForwardingChunkStore::ForwardingChunkStore;
  int allocations() const { return allocations_; }
  void Fail(bool on) { fail_ = on; }

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    if (fail_) return Status(ENOSPC, "test store is full");
    allocations_++;
    return ForwardingChunkStore::Allocate(file_id, chunk_size, index, offset, length);
  }

 private:
  std::atomic<int> allocations_{0};
  std::atomic<bool> fail_{false};
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
  uint64_t Size() {
    auto e = cluster.fs(1).Lookup(kRootFileId, "f");
    REQUIRE(e.has_value());
    return e->md.size;
  }

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
  Status s = t.cluster.fs(0).Fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, kChunk);
  CHECK(s.code() == EOPNOTSUPP);
  CHECK(t.stores[0]->allocations() + t.stores[1]->allocations() == 0);
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

}  // namespace
}  // namespace bb::fs
