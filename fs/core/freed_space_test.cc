// A full store and the space of a file removed while open: the kernel sends the file's last
// release after close() returned, so `rm big; write` can reach the daemon before the release
// that frees the space. The write waits for it (FileSystem::WriteFreeing).
#include <fcntl.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

// A chunk store of at most `capacity` bytes (ENOSPC past it), over the in-memory one.
class SmallStore : public ChunkStore {
 public:
  explicit SmallStore(uint64_t capacity) : capacity_(capacity), inner_(NewMemoryChunkStore()) {}
  Status Write(uint64_t id, uint64_t chunk_size, uint64_t index, uint64_t offset, std::span<const char> data) override {
    std::lock_guard lock(mu_);
    if (used_ + data.size() > capacity_) return Status(ENOSPC, "small store full");
    BB_RETURN_IF_ERROR(inner_->Write(id, chunk_size, index, offset, data));
    used_ += data.size();
    by_file_[id] += data.size();
    return Status::Ok();
  }
  Result<size_t> Read(uint64_t id, uint64_t chunk_size, uint64_t index, uint64_t offset, std::span<char> buf) override {
    return inner_->Read(id, chunk_size, index, offset, buf);
  }
  Status Allocate(uint64_t id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Allocate(id, chunk_size, index, offset, length);
  }
  Status Zero(uint64_t id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Zero(id, chunk_size, index, offset, length);
  }
  Status Truncate(uint64_t id, uint64_t size, uint64_t chunk_size) override {
    return inner_->Truncate(id, size, chunk_size);
  }
  Status Remove(uint64_t id) override {
    std::lock_guard lock(mu_);
    used_ -= by_file_[id];
    by_file_.erase(id);
    return inner_->Remove(id);
  }
  Status Sync(uint64_t id) override { return inner_->Sync(id); }

 private:
  const uint64_t capacity_;
  std::unique_ptr<ChunkStore> inner_;
  std::mutex mu_;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> by_file_;
};

TEST_CASE("a write to a full store waits for the release that frees a file removed while open", "[core]") {
  Cluster c(1, Cluster::Defaults(), [](uint32_t) { return std::make_unique<SmallStore>(8 * kChunk); });
  FileSystem& fs = c.fs(0);
  const std::string chunk(kChunk, 'b');
  auto big = fs.Create(kRootFileId, "big", 0644, O_WRONLY, kUser);
  REQUIRE(big.has_value());
  for (uint64_t i = 0; i < 8; ++i) REQUIRE(fs.Write(big->second, i * kChunk, {chunk.data(), chunk.size()}).has_value());
  auto more = fs.Write(big->second, 8 * kChunk, {chunk.data(), chunk.size()});
  REQUIRE_FALSE(more.has_value());
  CHECK(more.error().code() == ENOSPC);  // full, nothing open and unlinked: no wait

  // Removed while still open: its space is freed by its release, which comes a little later.
  REQUIRE(fs.Unlink(kRootFileId, "big").ok());
  auto next = fs.Create(kRootFileId, "next", 0644, O_WRONLY, kUser);
  REQUIRE(next.has_value());
  std::atomic<bool> released{false};
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    released = true;
    REQUIRE(fs.Release(big->second).ok());
  });
  std::string data(2 * kChunk, 'n');
  auto wrote = fs.Write(next->second, 0, {data.data(), data.size()});
  release.join();
  REQUIRE(wrote.has_value());
  CHECK(*wrote == data.size());
  CHECK(released);
  REQUIRE(fs.Release(next->second).ok());
}

}  // namespace
}  // namespace bb::fs

namespace bb::fs {
namespace {

// Every node's store refuses to free chunks (a store full to its last byte: a small file's chunk
// is a database value, and removing it is a write).
class KeepingChunks : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  Status RemoveChunks(uint64_t) override { return Status(ENOSPC, "store full: chunks kept"); }
};

TEST_CASE("an unlink or a rename over a file succeeds when the old file's chunks cannot be freed", "[core]") {
  Cluster c(4, Cluster::Defaults(), nullptr,
            [](uint32_t, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
              return std::make_unique<KeepingChunks>(std::move(s));
            });
  std::string data(3 * kChunk, 'd');  // chunks on several nodes: freed by every node at once
  c.Write(0, "/", "gone", data);
  c.Write(0, "/", "over", data);
  c.Write(0, "/", "moved", "new");
  CHECK(c.fs(1).Unlink(kRootFileId, "gone").ok());
  CHECK(c.fs(2).Lookup(kRootFileId, "gone").error().code() == ENOENT);
  CHECK(c.fs(1).Rename(kRootFileId, "moved", kRootFileId, "over", 0).ok());
  CHECK(c.fs(2).Lookup(kRootFileId, "moved").error().code() == ENOENT);
  auto over = c.fs(3).Lookup(kRootFileId, "over");
  REQUIRE(over.has_value());
  CHECK(over->md.size == 3);
}

}  // namespace
}  // namespace bb::fs
