// Write-behind (FileSystemOptions::write_behind_bytes) on two in-process nodes: node 0 writes,
// node 1's chunk store can be held shut or made to fail, so what waits for what is visible.
#include "fs/core/data/write_behind.h"

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using namespace std::chrono_literals;

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

constexpr int kChunks = 16;  // per test file; hashing puts about half on node 1

// Calls pass an open gate at once and wait at a shut one until it opens (20 s at most).
class Gate {
 public:
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
  // False when the gate stayed shut.
  bool Pass() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 20s, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
};

// A chunk store whose writes wait while the gate is shut, or fail while `fail` is set.
class GatedChunks : public testing::ForwardingChunkStore {
 public:
  using ForwardingChunkStore::ForwardingChunkStore;
  void Shut() { gate_.Shut(); }
  void Open() { gate_.Open(); }
  void Fail(bool on) { fail_ = on; }
  int writes() const { return writes_; }

  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    if (!gate_.Pass()) return Status(ETIMEDOUT, "gate stayed shut");
    if (fail_) return Status(ENOSPC, "test store is full");
    writes_++;
    return ForwardingChunkStore::Write(file_id, chunk_size, index, offset, data);
  }

 private:
  Gate gate_;
  std::atomic<bool> fail_{false};
  std::atomic<int> writes_{0};
};

// Counts the chunk write requests a node's service gets (a request of several ranges is one).
class CountedWrites : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  int requests() const { return requests_; }
  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    requests_++;
    return ForwardingNodeService::WriteChunk(file_id, chunk_size, index, offset, data);
  }
  Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                          std::span<const ChunkRange> ranges) override {
    requests_++;
    return ForwardingNodeService::WriteChunkRanges(file_id, chunk_size, index, ranges);
  }
  Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                      uint64_t offset, std::span<const char> data,
                                                      const std::string& path, const MetaUpdate& update,
                                                      const std::optional<Metadata>& make) override {
    requests_++;
    return ForwardingNodeService::WriteChunkAndUpdate(file_id, chunk_size, index, offset, data, path, update, make);
  }

 private:
  std::atomic<int> requests_{0};
};

// Two in-process nodes (test_cluster.h); node 1's chunk store is a GatedChunks, its service a
// CountedWrites.
struct TwoNodes {
  explicit TwoNodes(uint64_t behind_bytes = 64 << 20)
      : cluster(
            2, Options(behind_bytes),
            [this](uint32_t node) -> std::unique_ptr<ChunkStore> {
              if (node == 0) return NewMemoryChunkStore();
              auto gated = std::make_unique<GatedChunks>(NewMemoryChunkStore());
              gate = gated.get();
              return gated;
            },
            [this](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
              if (node != 1) return s;
              auto counted = std::make_unique<CountedWrites>(std::move(s));
              requests = counted.get();
              return counted;
            }) {}
  ~TwoNodes() { gate->Open(); }

  static FileSystemOptions Options(uint64_t behind_bytes) {
    FileSystemOptions o = Cluster::Defaults();
    o.write_behind_bytes = behind_bytes;
    return o;
  }

  FileSystem& fs(int i) { return cluster.fs(i); }

  OpenFile* Create(const std::string& name, int flags = O_RDWR) {
    auto cr = fs(0).Create(kRootFileId, name, 0644, flags, kUser);
    REQUIRE(cr.has_value());
    return cr->second;
  }

  std::string ReadAll(int node, const std::string& name) { return cluster.Read(node, "/", name).value(); }

  GatedChunks* gate = nullptr;  // before the cluster, which sets them while it is built
  CountedWrites* requests = nullptr;
  Cluster cluster;
};

std::string Pattern(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i % 251);
  return s;
}

// Shuts node 1's store and writes kChunks chunks of a pattern to `f` on node 0: the write
// returns with the chunks for node 1 still behind. Returns the data.
std::string WriteBehindShut(TwoNodes& c, OpenFile* f, char seed) {
  std::string data = Pattern(kChunks * kChunk, seed);
  c.gate->Shut();
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  return data;
}

template <typename T>
bool Done(std::future<T>& f, std::chrono::milliseconds wait) {
  return f.wait_for(wait) == std::future_status::ready;
}

// Runs `op` with node 1's store shut; true when it waited for the store (still running after
// 200 ms, done once the store opened) and then succeeded.
bool WaitsForNode1(TwoNodes& c, const std::function<bool()>& op) {
  c.gate->Shut();
  auto running = std::async(std::launch::async, op);
  bool waited = !Done(running, 200ms);
  c.gate->Open();
  REQUIRE(Done(running, 10s));
  return waited && running.get();
}

TEST_CASE("a write returns while its chunks for other nodes are on their way, close waits", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'a');
  c.gate->Shut();
  auto write = std::async(std::launch::async, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}); });
  REQUIRE(Done(write, 10s));  // node 1's store is shut, yet the write is done
  REQUIRE(write.get().has_value());
  CHECK(WaitsForNode1(c, [&] { return c.fs(0).Flush(f).ok(); }));  // close waits for them
  CHECK(c.gate->writes() > 0);
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("the writing node reads its own writes behind", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = WriteBehindShut(c, f, 'b');
  std::string back(data.size(), '\0');
  // Waits for the writes behind, never reads around them.
  CHECK(WaitsForNode1(c, [&] { return c.fs(0).Read(f, 0, {back.data(), back.size()}).has_value(); }));
  CHECK(back == data);
  REQUIRE(c.fs(0).Release(f).ok());
}

TEST_CASE("a read waits only for the writes behind of its own chunks", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = WriteBehindShut(c, f, 'r');  // node 1's chunks are behind, its store shut
  std::vector<std::future<std::string>> reads;
  for (uint64_t i = 0; i < kChunks; ++i) {
    reads.push_back(std::async(std::launch::async, [&, i] {
      std::string back(kChunk, '\0');
      auto n = c.fs(0).Read(f, i * kChunk, {back.data(), back.size()});
      return n ? back : std::string();
    }));
  }
  // The chunks stored on node 0 read back at once, while node 1's are still on their way.
  size_t at_once = 0;
  for (auto& r : reads) at_once += Done(r, 200ms);
  CHECK(at_once > 0);
  CHECK(at_once < kChunks);
  c.gate->Open();
  for (uint64_t i = 0; i < kChunks; ++i) {
    REQUIRE(Done(reads[i], 10s));
    CHECK(reads[i].get() == data.substr(i * kChunk, kChunk));
  }
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

TEST_CASE("a write behind to a full store waits for the release that frees a file removed while open", "[core]") {
  TwoNodes c;
  OpenFile* big = c.Create("big");
  std::string old = Pattern(kChunks * kChunk, 'o');
  REQUIRE(c.fs(0).Write(big, 0, {old.data(), old.size()}).has_value());
  REQUIRE(c.fs(0).Flush(big).ok());
  REQUIRE(c.fs(0).Unlink(kRootFileId, "big").ok());  // still open: freed by its release
  c.gate->Fail(true);                                // node 1's store is full until then
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'n');
  auto release = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(100ms);
    c.gate->Fail(false);  // what the release frees
    return c.fs(0).Release(big);
  });
  REQUIRE(c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value());
  CHECK(c.fs(0).Flush(f).ok());  // the writes behind waited for the release and went again
  CHECK(release.get().ok());
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("O_DSYNC and O_DIRECT writes wait for every chunk", "[core]") {
  TwoNodes c;
  int flags = GENERATE(O_RDWR | O_DSYNC, O_RDWR | O_SYNC, O_RDWR | O_DIRECT);
  CAPTURE(flags);
  OpenFile* f = c.Create("f", flags);
  std::string data = Pattern(kChunks * kChunk, 'd');
  CHECK(WaitsForNode1(c, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value(); }));
  REQUIRE(c.fs(0).Release(f).ok());
}

TEST_CASE("a truncate waits for writes behind: nothing lands past the cut", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string data = WriteBehindShut(c, f, 'e');
  SetAttrRequest cut;
  cut.size = 0;
  uint64_t ino = c.fs(0).Lookup(kRootFileId, "f")->ino;
  REQUIRE(WaitsForNode1(c, [&] { return c.fs(0).SetAttr(ino, cut, f).has_value(); }));
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
  // About half of 16 chunks go to node 1: more than two.
  CHECK(WaitsForNode1(c, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value(); }));
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f") == data);
}

TEST_CASE("without write-behind every write waits for its chunks", "[core]") {
  TwoNodes c(0);
  OpenFile* f = c.Create("f");
  std::string data = Pattern(kChunks * kChunk, 'g');
  CHECK(WaitsForNode1(c, [&] { return c.fs(0).Write(f, 0, {data.data(), data.size()}).has_value(); }));
  REQUIRE(c.fs(0).Release(f).ok());
}

}  // namespace
}  // namespace bb::fs

namespace bb::fs {
namespace {

TEST_CASE("extents merge what overlaps or touches, the later bytes winning", "[core]") {
  struct Row {
    std::vector<std::pair<uint64_t, std::string>> adds;
    std::vector<std::pair<uint64_t, std::string>> want;
    uint64_t last_growth;
  };
  const Row rows[] = {
      {{{10, "abc"}}, {{10, "abc"}}, 3},
      {{{10, "abc"}, {13, "de"}}, {{10, "abcde"}}, 2},                        // touches at the end
      {{{10, "abc"}, {8, "xy"}}, {{8, "xyabc"}}, 2},                          // touches at the start
      {{{10, "abc"}, {20, "z"}}, {{10, "abc"}, {20, "z"}}, 1},                // a gap stays a gap
      {{{10, "abc"}, {11, "XY"}}, {{10, "aXY"}}, 0},                          // inside: held already
      {{{10, "abc"}, {12, "XYZ"}}, {{10, "abXYZ"}}, 2},                       // overlaps the end
      {{{10, "ab"}, {14, "cd"}, {12, "--"}}, {{10, "ab--cd"}}, 2},            // bridges two
      {{{10, "ab"}, {14, "cd"}, {9, "0123456789"}}, {{9, "0123456789"}}, 6},  // covers two
      {{{0, "a"}, {5, "b"}, {9, ""}}, {{0, "a"}, {5, "b"}}, 0},               // empty: nothing
  };
  for (const Row& row : rows) {
    Extents e;
    uint64_t growth = 0;
    uint64_t held = 0;
    for (const auto& [off, data] : row.adds) {
      growth = AddExtent(e, off, {data.data(), data.size()});
      held += growth;
    }
    std::vector<std::pair<uint64_t, std::string>> got(e.begin(), e.end());
    CHECK(got == row.want);
    CHECK(growth == row.last_growth);
    uint64_t total = 0;
    for (const auto& [off, data] : e) total += data.size();
    CHECK(held == total);
  }
}

// A chunk of `f` that node 1 holds (placement is by file id: found by writing `first` to each).
uint64_t ChunkOfNode1(TwoNodes& c, OpenFile* f, const std::string& first) {
  for (uint64_t chunk = 0;; ++chunk) {
    c.gate->Shut();
    int before = c.gate->writes();
    REQUIRE(c.fs(0).Write(f, chunk * kChunk, {first.data(), first.size()}).has_value());
    c.gate->Open();
    REQUIRE(c.fs(0).Flush(f).ok());
    if (c.gate->writes() > before) return chunk;  // it went to node 1
    REQUIRE(chunk < kChunks);
  }
}

TEST_CASE("small writes of a chunk on its way gather, and go together after it", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string first(100, 'a');
  uint64_t chunk = ChunkOfNode1(c, f, first);
  c.gate->Shut();
  REQUIRE(c.fs(0).Write(f, chunk * kChunk, {first.data(), first.size()}).has_value());  // on its way, held
  int before = c.gate->writes();
  // 30 writes of 100 bytes after it, in two interleaved runs (as two ranks of ior-hard): none
  // waits for node 1, which is shut.
  std::string expect(first);
  expect.resize(100 + 30 * 100);
  auto writes = std::async(std::launch::async, [&] {
    for (int i = 0; i < 30; ++i) {
      int slot = i % 2 == 0 ? i + 1 : i - 1;  // 1, 0, 3, 2, ...
      std::string piece(100, static_cast<char>('b' + slot % 20));
      std::memcpy(expect.data() + 100 + slot * 100, piece.data(), 100);
      if (!c.fs(0).Write(f, chunk * kChunk + 100 + slot * 100, {piece.data(), piece.size()})) return false;
    }
    return true;
  });
  REQUIRE(Done(writes, 10s));
  CHECK(writes.get());
  c.gate->Open();
  REQUIRE(c.fs(0).Flush(f).ok());
  // The held write, then the 30 gathered into one range (they touch each other and it).
  CHECK(c.gate->writes() - before == 2);
  REQUIRE(c.fs(0).Release(f).ok());
  std::string back = c.ReadAll(1, "f");
  CHECK(back.substr(chunk * kChunk, expect.size()) == expect);
}

TEST_CASE("writes gathered behind one on its way go in one request, though their ranges do not touch", "[core]") {
  TwoNodes c;
  OpenFile* f = c.Create("f");
  std::string first(100, 'a');
  uint64_t chunk = ChunkOfNode1(c, f, first);
  int requests = c.requests->requests(), writes = c.gate->writes();
  c.gate->Shut();
  REQUIRE(c.fs(0).Write(f, chunk * kChunk, {first.data(), first.size()}).has_value());  // on its way, held
  // 15 writes of 100 bytes into 14 slots with a gap of 100 after each, in two interleaved runs,
  // the last slot written twice (the later bytes win).
  std::string expect(first);
  expect.resize(200 + 13 * 200 + 100);
  const int slots[] = {1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 13};
  for (int i = 0; i < 15; ++i) {
    int slot = slots[i];
    std::string piece(100, static_cast<char>('b' + i));
    std::memcpy(expect.data() + 200 + slot * 200, piece.data(), 100);
    REQUIRE(c.fs(0).Write(f, chunk * kChunk + 200 + slot * 200, {piece.data(), piece.size()}).has_value());
  }
  c.gate->Open();
  REQUIRE(c.fs(0).Flush(f).ok());
  // The held write, then one request of 14 ranges, each written to the store.
  CHECK(c.requests->requests() - requests == 2);
  CHECK(c.gate->writes() - writes == 1 + 14);
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.ReadAll(1, "f").substr(chunk * kChunk, expect.size()) == expect);
}

// Node 1's answer to the next UpdateMeta (or GetMeta) waits, its work at node 1 done, until
// Release.
class HeldAnswer : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  enum class Call { kUpdateMeta, kGetMeta };
  void HoldNext(Call call = Call::kUpdateMeta) {
    std::lock_guard lock(mu_);
    hold_ = call;
    released_ = false;
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  // Whether an answer is held, within 10 s.
  bool WaitHeld() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return holding_; });
  }
  // The next UpdateMeta, RemoveMeta or RemoveFile is applied at node 1, but its answer is lost:
  // the caller gets ETIMEDOUT.
  void LoseNext() {
    std::lock_guard lock(mu_);
    lose_ = true;
  }
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& update) override {
    (void)updates_.Pass();
    auto r = Held(Call::kUpdateMeta, ForwardingNodeService::UpdateMeta(path, update));
    return Lost() ? Status(ETIMEDOUT, "the answer was lost") : r;
  }
  Result<Metadata> GetMeta(const std::string& path) override {
    return Held(Call::kGetMeta, ForwardingNodeService::GetMeta(path));
  }
  // While shut, an UpdateMeta (a size sent with its chunk among them) waits at node 1 before it is
  // applied.
  void ShutUpdates() { updates_.Shut(); }
  void OpenUpdates() { updates_.Open(); }
  Result<Metadata> RemoveMeta(const std::string& path) override {
    auto r = ForwardingNodeService::RemoveMeta(path);
    return Lost() ? Status(ETIMEDOUT, "the answer was lost") : r;
  }
  Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) override {
    auto r = ForwardingNodeService::RemoveFile(path, file_id);
    return Lost() ? Status(ETIMEDOUT, "the answer was lost") : r;
  }

 private:
  bool Lost() {
    std::lock_guard lock(mu_);
    return std::exchange(lose_, false);
  }
  Result<Metadata> Held(Call call, Result<Metadata> r) {
    std::unique_lock lock(mu_);
    if (hold_ != call) return r;
    hold_.reset();
    holding_ = true;
    cv_.notify_all();
    cv_.wait_for(lock, 20s, [&] { return released_; });
    holding_ = false;
    return r;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<Call> hold_;
  bool holding_ = false;
  bool released_ = true;
  bool lose_ = false;
  Gate updates_;
};

// Two nodes caching attributes, with write-behind, node 1's service a HeldAnswer; a file whose
// entry node 1 holds, made by node 0.
struct HeldCluster {
  HeldCluster()
      : c(2, Options(), nullptr, [this](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
          if (node != 1) return s;
          auto h = std::make_unique<HeldAnswer>(std::move(s));
          held = h.get();
          return h;
        }) {
    for (int k = 0; name.empty(); ++k) {
      if (c.OwnerOf(0, "/f" + std::to_string(k)) == 1) name = "f" + std::to_string(k);
    }
    ino = c.Write(0, "/", name, "x");
  }
  ~HeldCluster() {
    held->OpenUpdates();
    held->Release();
  }
  static FileSystemOptions Options() {
    FileSystemOptions o = Cluster::Coherent();  // attributes served from the node's copy
    o.write_behind_bytes = 64 << 20;
    return o;
  }

  // The file opened for writing on node 0 (not a new file of a stream: its writes go behind).
  OpenFile* OpenHere() {
    auto opened = c.fs(0).Open(ino, O_RDWR, kUser);
    REQUIRE(opened.has_value());
    return *opened;
  }
  // The first chunk from `first` on that `node` holds of file `f`.
  static uint64_t ChunkOf(const OpenFile* f, uint32_t node, uint64_t first = 1) {
    uint64_t i = first;
    while (f->data.For(i) != node) ++i;
    return i;
  }

  // A getattr on node 0 whose answer node 1 holds back (node 0's copy made stale first), once
  // held; Release lets it finish.
  std::future<Result<Entry>> GetAttrHeld() {
    c.clock.Advance(Cluster::Coherent().attr_cache_ns + 1);
    held->HoldNext(HeldAnswer::Call::kGetMeta);
    auto first = std::async(std::launch::async, [this] { return c.fs(0).GetAttr(ino); });
    REQUIRE(held->WaitHeld());
    return first;
  }

  HeldAnswer* held = nullptr;  // before the cluster, which sets it while it is built
  Cluster c;
  std::string name;
  uint64_t ino = 0;
};

TEST_CASE("an answer overtaken by a later one never serves its older size", "[core]") {
  // Node 0 writes into a chunk node 1 holds, the size going with it (node 1 holds the entry too),
  // and node 1's answer is held back. Meanwhile a longer write and a publish (fallocate) give node
  // 0 the larger size. Then the held answer, with the smaller size, comes: it must not be what
  // node 0 serves (fsx found this: a stat after a write split in two read the first part's end).
  HeldCluster h;
  OpenFile* f = h.OpenHere();
  // A chunk node 1 holds, and a later one node 0 holds.
  const uint64_t remote = HeldCluster::ChunkOf(f, 1);
  const uint64_t local = HeldCluster::ChunkOf(f, 0, remote + 1);
  h.held->HoldNext();
  REQUIRE(h.c.fs(0).Write(f, remote * kChunk, {"abc", 3}).has_value());  // behind, with its size
  REQUIRE(h.held->WaitHeld());                                           // node 1 took that size
  REQUIRE(h.c.fs(0).Write(f, local * kChunk + 10, {"defg", 4}).has_value());
  REQUIRE(h.c.fs(0).Fallocate(f, FALLOC_FL_KEEP_SIZE, local * kChunk, 4).ok());  // publishes the size
  h.held->Release();
  REQUIRE(h.c.fs(0).Flush(f).ok());  // the held answer came
  auto attr = h.c.fs(0).GetAttr(h.ino);
  REQUIRE(attr.has_value());
  CHECK(attr->md.size == local * kChunk + 14);
  REQUIRE(h.c.fs(0).Release(f).ok());
  CHECK(h.c.Read(1, "/", h.name).value().size() == local * kChunk + 14);
}

TEST_CASE("a stat while a size is on its way to its owner reads that size", "[core]") {
  // Node 0 writes (to a chunk of its own: nothing goes with the data) and closes; the publish of
  // the size to node 1 is held back. A stat on node 0 meanwhile, after the write returned, must
  // read the new size, not the one node 0 cached before.
  HeldCluster h;
  OpenFile* f = h.OpenHere();
  const uint64_t local = HeldCluster::ChunkOf(f, 0);
  REQUIRE(h.c.fs(0).Write(f, local * kChunk, {"abc", 3}).has_value());
  h.held->HoldNext();
  auto flush = std::async(std::launch::async, [&] { return h.c.fs(0).Flush(f).ok(); });
  REQUIRE(h.held->WaitHeld());
  auto attr = h.c.fs(0).GetAttr(h.ino);
  REQUIRE(attr.has_value());
  CHECK(attr->md.size == local * kChunk + 3);
  h.held->Release();
  CHECK(flush.get());
  attr = h.c.fs(0).GetAttr(h.ino);
  REQUIRE(attr.has_value());
  CHECK(attr->md.size == local * kChunk + 3);
  REQUIRE(h.c.fs(0).Release(f).ok());
}

TEST_CASE("a stat whose read crossed a size taken with its chunk reads that size", "[core]") {
  // Node 0 writes into a chunk node 1 holds, the size going with it (node 1 holds the entry too),
  // and the write waits at node 1 before it is applied. A getattr on node 0 then reads node 1's
  // entry, the old size, and its answer is held back; meanwhile the write is applied and
  // answered, which publishes its size. The getattr must still answer the write's size
  // (file_oracle found this: an fstat right after a write read the size before it).
  HeldCluster h;
  OpenFile* f = h.OpenHere();
  const uint64_t remote = HeldCluster::ChunkOf(f, 1);
  h.held->ShutUpdates();
  REQUIRE(h.c.fs(0).Write(f, remote * kChunk, {"abc", 3}).has_value());  // behind, with its size
  auto attr = h.GetAttrHeld();
  h.held->OpenUpdates();
  REQUIRE(h.c.fs(0).Flush(f).ok());  // the write was applied and answered
  h.held->Release();
  auto got = attr.get();
  REQUIRE(got.has_value());
  CHECK(got->md.size == remote * kChunk + 3);
  REQUIRE(h.c.fs(0).Release(f).ok());
  CHECK(h.c.fs(0).GetAttr(h.ino).value().md.size == remote * kChunk + 3);
}

TEST_CASE("reads that cross keep the attributes cached", "[core]") {
  // Two getattrs of one file on node 0 cross (the first one's answer is held back at node 1).
  // Neither changes the file, and a change by another node between them would be told: the
  // answer that comes last stays fresh, and the next getattr asks nobody.
  HeldCluster h;
  auto first = h.GetAttrHeld();
  REQUIRE(h.c.fs(0).GetAttr(h.ino).has_value());  // asks node 1 as well, and is answered
  h.held->Release();
  REQUIRE(first.get().has_value());
  uint64_t asked = h.c.MetaTo(0, 1);
  auto attr = h.c.fs(0).GetAttr(h.ino);
  REQUIRE(attr.has_value());
  CHECK(attr->md.size == 1);
  CHECK(h.c.MetaTo(0, 1) == asked);
}

TEST_CASE("an answer asked before a change whose own answer was lost is not kept fresh", "[core]") {
  // Node 0 asks node 1 for the file's attributes, and that answer is held back. Then node 0
  // changes the file's mode: node 1 applies it, but its answer is lost (a deadline). The held
  // answer, read before the change, comes last: node 0 must not serve its mode from its copy.
  HeldCluster h;
  auto first = h.GetAttrHeld();
  h.held->LoseNext();
  SetAttrRequest chmod;
  chmod.mode = 0600;
  auto changed = h.c.fs(0).SetAttr(h.ino, chmod, nullptr);
  REQUIRE_FALSE(changed.has_value());
  CHECK(changed.error().code() == ETIMEDOUT);
  h.held->Release();
  REQUIRE(first.get().has_value());
  auto attr = h.c.fs(0).GetAttr(h.ino);
  REQUIRE(attr.has_value());
  CHECK((attr->md.mode & 07777) == 0600);
  auto at1 = h.c.fs(1).Lookup(kRootFileId, h.name);  // the owner applied it
  REQUIRE(at1.has_value());
  CHECK((at1->md.mode & 07777) == 0600);
}

TEST_CASE("an answer asked before a removal whose own answer was lost is not kept fresh", "[core]") {
  // As above with an unlink: the held answer, read while the file was there, must not make node
  // 0 serve the removed file from its copy.
  HeldCluster h;
  auto first = h.GetAttrHeld();
  h.held->LoseNext();
  Status removed = h.c.fs(0).Unlink(kRootFileId, h.name);
  CHECK(removed.code() == ETIMEDOUT);
  h.held->Release();
  REQUIRE(first.get().has_value());
  CHECK(h.c.fs(0).Lookup(kRootFileId, h.name).error().code() == ENOENT);
  auto attr = h.c.fs(0).GetAttr(h.ino);  // the inode the kernel may still hold: its last attributes,
  REQUIRE(attr.has_value());             // not fresh, since the owner has it no more
  CHECK(attr->fresh_left_ns == 0);
  CHECK(h.c.fs(1).Lookup(kRootFileId, h.name).error().code() == ENOENT);  // the owner removed it
}

}  // namespace
}  // namespace bb::fs
