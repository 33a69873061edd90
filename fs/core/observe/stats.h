// NodeStats: what one daemon did, counted as it happens — operations of the file system by
// type, where its metadata and data requests went (per node, this one included), and what its
// own stores served to every caller. `bbctl stats` shows them; tests and benchmarks use them to
// check where work actually went. RPC counts per peer are kept by the transport.
//
// Thread-safety: every counter is a relaxed atomic; readers get a consistent-enough snapshot.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace bb::fs {

enum class FsOp : uint8_t {
  kLookup,
  kGetAttr,
  kSetAttr,
  kMknod,
  kMkdir,
  kSymlink,
  kReadlink,
  kUnlink,
  kRmdir,
  kRename,
  kLink,
  kCreate,
  kOpen,
  kRead,
  kWrite,
  kFallocate,
  kFlush,
  kFsync,
  kRelease,
  kOpenDir,
  kReadDirPage,
  kStatFs,
  kGetXattr,
  kSetXattr,
  kListXattr,
  kRemoveXattr,
  kGetLk,
  kSetLk,
  kFlock,
  kCount
};
inline constexpr size_t kFsOpCount = static_cast<size_t>(FsOp::kCount);
const char* FsOpName(FsOp op);

class NodeStats {
 public:
  // Requests this node sent to one node (itself included).
  struct Target {
    std::atomic<uint64_t> meta_requests{0};  // entry reads/writes and directory pages
    std::atomic<uint64_t> data_requests{0};  // chunk reads, writes, allocations
    std::atomic<uint64_t> read_bytes{0};
    std::atomic<uint64_t> write_bytes{0};
  };
  // What this node's stores served, to local and remote callers alike.
  struct Served {
    std::atomic<uint64_t> meta_ops{0};
    std::atomic<uint64_t> data_ops{0};
    std::atomic<uint64_t> read_bytes{0};
    std::atomic<uint64_t> write_bytes{0};
  };

  explicit NodeStats(uint32_t nodes) : nodes_(nodes), to_(std::make_unique<Target[]>(nodes)) {}

  void Count(FsOp op) { ops_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed); }
  // Entries read locally because every node keeps them (the root, workspace roots).
  void CountReplicated() { replicated_reads_.fetch_add(1, std::memory_order_relaxed); }
  // A directory's batched entry changes sent to another node (DirChanges: their number follows
  // the timing, one batch per directory per interval).
  void CountDirUpdate() { dir_updates_.fetch_add(1, std::memory_order_relaxed); }
  void Meta(uint32_t node) {
    if (node < nodes_) to_[node].meta_requests.fetch_add(1, std::memory_order_relaxed);
  }
  void Data(uint32_t node, uint64_t read, uint64_t written) {
    if (node >= nodes_) return;
    to_[node].data_requests.fetch_add(1, std::memory_order_relaxed);
    if (read) to_[node].read_bytes.fetch_add(read, std::memory_order_relaxed);
    if (written) to_[node].write_bytes.fetch_add(written, std::memory_order_relaxed);
  }

  // An operation answered with errno `err` (the FUSE adapter counts each error reply).
  void CountError(int err) {
    errors_[err > 0 && static_cast<size_t>(err) < kErrnos ? static_cast<size_t>(err) : 0].fetch_add(
        1, std::memory_order_relaxed);
  }
  // Error replies by errno (index 0: errnos out of range).
  uint64_t errors(int err) const { return errors_[static_cast<size_t>(err)].load(std::memory_order_relaxed); }
  static constexpr size_t kErrnos = 160;

  uint64_t ops(FsOp op) const { return ops_[static_cast<size_t>(op)].load(std::memory_order_relaxed); }
  uint64_t replicated_reads() const { return replicated_reads_.load(std::memory_order_relaxed); }
  uint64_t dir_updates() const { return dir_updates_.load(std::memory_order_relaxed); }
  uint32_t nodes() const { return nodes_; }
  const Target& to(uint32_t node) const { return to_[node]; }
  Served& served() { return served_; }
  const Served& served() const { return served_; }

 private:
  const uint32_t nodes_;
  std::array<std::atomic<uint64_t>, kFsOpCount> ops_{};
  std::atomic<uint64_t> replicated_reads_{0};
  std::atomic<uint64_t> dir_updates_{0};
  std::array<std::atomic<uint64_t>, kErrnos> errors_{};
  std::unique_ptr<Target[]> to_;
  Served served_;
};

}  // namespace bb::fs
