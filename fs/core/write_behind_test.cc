// Write-behind (FileSystemOptions::write_behind_bytes) on two in-process nodes: node 0 writes,
// node 1's chunk store can be held shut or made to fail, so what waits for what is visible.
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>

#include "fs/core/file_system.h"
#include "fs/core/workspace.h"

namespace bb::fs {
namespace {

using namespace std::chrono_literals;

constexpr uint32_t kChunk = 4096;
constexpr int kChunks = 16;  // per test file; hashing puts about half on node 1
const Caller kUser{1000, 1000, 1};

// A chunk store whose writes wait while the gate is shut, or fail while `fail` is set.
class GatedChunks : public ChunkStore {
 public:
  explicit GatedChunks(std::unique_ptr<ChunkStore> inner) : inner_(std::move(inner)) {}
  void Shut() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void Fail(bool on) { fail_ = on; }
  int writes() const { return writes_; }

  Status Write(uint64_t file_id, uint64_t index, uint64_t offset, std::span<const char> data) override {
    {
      std::unique_lock lock(mu_);
      if (!cv_.wait_for(lock, 20s, [&] { return open_; })) return Status(ETIMEDOUT, "gate stayed shut");
    }
    if (fail_) return Status(ENOSPC, "test store is full");
    writes_++;
    return inner_->Write(file_id, index, offset, data);
  }
  Result<size_t> Read(uint64_t file_id, uint64_t index, uint64_t offset, std::span<char> buf) override {
    return inner_->Read(file_id, index, offset, buf);
  }
  Status Allocate(uint64_t file_id, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Allocate(file_id, index, offset, length);
  }
  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return inner_->Truncate(file_id, size, chunk_size);
  }
  Status Remove(uint64_t file_id) override { return inner_->Remove(file_id); }
  Status Sync(uint64_t file_id) override { return inner_->Sync(file_id); }

 private:
  std::unique_ptr<ChunkStore> inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  std::atomic<bool> fail_{false};
  std::atomic<int> writes_{0};
};

struct TwoNodes {
  struct Member {
    std::unique_ptr<MetaStore> meta = NewMemoryMetaStore();
    std::unique_ptr<ChunkStore> chunks;
    std::unique_ptr<WorkspaceRouter> router;
    std::unique_ptr<NodeService> service;
    std::unique_ptr<FileIdAllocator> ids;
    std::unique_ptr<FileSystem> fs;
  };

  explicit TwoNodes(uint64_t behind_bytes = 64 << 20) {
    members[0].chunks = NewMemoryChunkStore();
    auto gated = std::make_unique<GatedChunks>(NewMemoryChunkStore());
    gate = gated.get();
    members[1].chunks = std::move(gated);
    for (uint32_t i = 0; i < 2; ++i) {
      Member& m = members[i];
      m.router = std::make_unique<WorkspaceRouter>(LayoutOptions{}, kChunk, i, 2);
      m.service = NewLocalNodeService(m.meta.get(), m.chunks.get(), {"", 0, m.router.get(), nullptr});
      m.ids = std::make_unique<FileIdAllocator>(m.meta.get(), i);
      FileSystemOptions o;
      o.chunk_size = kChunk;
      o.write_behind_bytes = behind_bytes;
      m.fs = std::make_unique<FileSystem>(o, m.router.get(), [this](NodeId id) { return members[id].service.get(); },
                                          m.ids.get(), &clock, nullptr);
    }
    for (auto& m : members) REQUIRE(m.fs->Init(kUser).ok());
  }
  ~TwoNodes() { gate->Open(); }

  FileSystem& fs(int i) { return *members[i].fs; }

  OpenFile* Create(const std::string& name, int flags = O_RDWR) {
    auto cr = fs(0).Create(kRootFileId, name, 0644, flags, kUser);
    REQUIRE(cr.has_value());
    return cr->second;
  }

  std::string ReadAll(int node, const std::string& name) {
    auto e = fs(node).Lookup(kRootFileId, name);
    REQUIRE(e.has_value());
    auto f = fs(node).Open(e->ino, O_RDONLY);
    REQUIRE(f.has_value());
    std::string buf(e->md.size, '\0');
    auto n = fs(node).Read(*f, 0, {buf.data(), buf.size()});
    REQUIRE(fs(node).Release(*f).ok());
    REQUIRE(n.has_value());
    buf.resize(*n);
    return buf;
  }

  ManualClock clock;
  Member members[2];
  GatedChunks* gate = nullptr;
};

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i % 251);
  return s;
}

template <typename T>
bool Done(std::future<T>& f, std::chrono::milliseconds wait) {
  return f.wait_for(wait) == std::future_status::ready;
}

// Writes `data` at 0 on node 0 with node 1's store shut; true when the write waited for the
// store (still running after 200 ms, done once the store opened) and then succeeded.
bool WriteWaitsForNode1(TwoNodes& c, OpenFile* f, const std::string& data) {
  c.gate->Shut();
  auto write = std::async(std::launch::async, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}); });
  bool waited = !Done(write, 200ms);
  c.gate->Open();
  REQUIRE(Done(write, 10s));
  return waited && write.get().has_value();
}

TEST_CASE("a write returns while its chunks for other nodes are on their way; close waits", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'a');
  c.gate->Shut();
  auto write = std::async(std::launch::async, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}); });
  REQUIRE(Done(write, 10s));  // node 1's store is shut, yet the write is done
  REQUIRE(write.get().has_value());
  auto flush = std::async(std::launch::async, [&] { return c.fs(0).Flush(f); });
  CHECK_FALSE(Done(flush, 200ms));  // close waits for them
  c.gate->Open();
  REQUIRE(Done(flush, 10s));
  CHECK(flush.get().ok());
  CHECK(c.gate->writes() > 0);
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("the writing node reads its own writes behind", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'b');
  c.gate->Shut();
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  std::string back(data.size(), '\0');
  auto read = std::async(std::launch::async, [&] { return c.fs(0).Read(f, 0, {back.data(), back.size()}); });
  CHECK_FALSE(Done(read, 200ms));  // waits for the writes behind, never reads around them
  c.gate->Open();
  REQUIRE(Done(read, 10s));
  REQUIRE(read.get().has_value());
  CHECK(back == data);
  REQUIRE(c.fs(0).Release(f).ok());
}

TEST_CASE("the first failure of a write behind comes back at flush, once", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'c');
  c.gate->Fail(true);
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  Status s = c.fs(0).Flush(f);
  CHECK(s.code() == ENOSPC);
  CHECK(s.message().find("behind") != std::string::npos);
  CHECK(c.fs(0).Flush(f).ok());  // reported once
  c.gate->Fail(false);
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  CHECK(c.fs(0).Fsync(f).ok());
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("O_DSYNC and O_DIRECT writes wait for every chunk", "[core]") {
  TwoNodes c;
  int flags = GENERATE(O_RDWR | O_DSYNC, O_RDWR | O_SYNC, O_RDWR | O_DIRECT);
  CAPTURE(flags);
  OpenFile* f = c.Create("f", flags);
  CHECK(WriteWaitsForNode1(c, f, Pattern(kChunks * kChunk, 'd')));
  REQUIRE(c.fs(0).Release(f).ok());
}

TEST_CASE("a truncate waits for writes behind: nothing lands past the cut", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'e');
  c.gate->Shut();
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  SetAttrRequest cut;
  cut.size = 0;
  uint64_t ino = c.fs(0).Lookup(kRootFileId, "f")->ino;
  auto truncate = std::async(std::launch::async, [&] { return c.fs(0).SetAttr(ino, cut, f); });
  CHECK_FALSE(Done(truncate, 200ms));
  c.gate->Open();
  REQUIRE(Done(truncate, 10s));
  REQUIRE(truncate.get().has_value());
  SetAttrRequest grow;
  grow.size = data.size();
  REQUIRE(c.fs(0).SetAttr(ino, grow, f).has_value());
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == std::string(data.size(), '\0'));
}

TEST_CASE("writers wait for room when write_behind_bytes are on their way", "[core]") {
  TwoNodes c(2 * kChunk);  // room for two chunks
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'f');
  CHECK(WriteWaitsForNode1(c, f, data));  // about half of 16 chunks go to node 1: more than two
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("without write-behind every write waits for its chunks", "[core]") {
  TwoNodes c(0);
  OpenFile* f = c.Create("f");
  CHECK(WriteWaitsForNode1(c, f, Pattern(kChunks * kChunk, 'g')));
  REQUIRE(c.fs(0).Release(f).ok());
}

}  // namespace
}  // namespace bb::fs
