// Private to the core: write-behind, the engine that lets a write return while its chunks for
// other nodes are still on their way (FileSystemOptions::write_behind_bytes).
//
// A piece written behind is copied into a buffer of its own (from a pool faulted in once, see
// fs/base/buffer_pool.h) and sent on a FanOut helper thread. At most `limit` bytes are on
// their way at once (writers wait for room). Per file, one write per chunk is on its way at a
// time, so writes of the same chunk arrive in order. Writes of a chunk that come while one is
// on its way do not wait for it: they gather (Extents: adjacent and overlapping ranges merge,
// the later bytes winning) and go together, in one request however many ranges they make
// (NodeService::WriteChunkRanges), when it is done — small writes into one chunk (an
// interleaved shared file, IO500's ior-hard) cost one round trip per gathering instead of one
// each, and their writers no longer wait for each other's round trips. The file's state
// (Inode::behind, under Inode::mu) names the chunks on their way or gathering and keeps the first
// error one of them met, which the next write, flush or fsync of the file reports (as NFS and
// Lustre clients do). That state belongs to the file's in-memory inode and is guarded by the
// inode's lock (BehindState::guard); a write on its way keeps it alive (a shared_ptr aliasing the
// inode).
//
// Thread-safety: every method may be called concurrently. Lock order: the file's lock
// (BehindState::guard), then WriteBehind's own lock; neither is held across a NodeService call.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "fs/base/buffer_pool.h"
#include "fs/base/status.h"
#include "fs/core/placement/chunking.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

class FanOut;

// What a write behind may carry besides its data: its file's size, to the node that holds both
// the chunk and the file's entry (NodeService::WriteChunkAndUpdate), and the entry itself when it
// was made on this node and waits to go to its owner (`make`, deferred_creates.h). `taken` runs on
// the helper thread with that node's answer (the request's status, and the entry after the update,
// or nullopt: not taken, or the write failed), holding no lock, before the chunk counts as
// arrived.
struct SizeAlong {
  std::string path;
  MetaUpdate update;
  std::optional<Metadata> make;
  std::function<void(const Status& sent, std::optional<Metadata> entry)> taken;
};
// Writes the chunk with its size to `node` and tells `size.taken`; returns the write's status.
Status WriteWithSize(NodeService* node, uint64_t file_id, uint64_t chunk_size, const ChunkSpan& span,
                     std::span<const char> bytes, const SizeAlong& size);

// Byte ranges of one chunk, by offset; no two overlap or touch.
using Extents = std::map<uint64_t, std::string>;
// Adds `data` at `offset` to `extents`, merging it with every range it overlaps or touches (its
// bytes win). Returns the growth of the bytes held (at most data.size(); 0 for a range already
// held).
uint64_t AddExtent(Extents& extents, uint64_t offset, std::span<const char> data);

// One file's writes behind. Guarded by `guard`, its file's lock (the inode's, set with it).
struct BehindState {
  explicit BehindState(std::mutex* file_lock) : guard(file_lock) {}
  std::mutex* const guard;
  std::set<uint64_t> chunks;  // chunks with a write on its way (and maybe more gathering)
  // Writes of chunks on their way that came meanwhile: they go when the chunk's write is done.
  struct Gathered {
    NodeService* node = nullptr;
    uint64_t file_id = 0;
    uint64_t chunk_size = 0;
    Extents extents;
    uint64_t bytes = 0;  // held in `extents`
  };
  std::map<uint64_t, Gathered> gathered;
  Status error;                // the first error one of them met, until reported
  std::condition_variable cv;  // with *guard: a write behind finished
};

class WriteBehind {
 public:
  // Runs one chunk write (the argument) and may run it again (FileSystem::WriteFreeing).
  using Retry = std::function<Status(const std::function<Status()>&)>;

  // `fan_out` must outlive every write posted (the FileSystem destroys its FanOut first, which
  // runs what is still queued). `limit` 0 disables write-behind. `retry` (may be null) runs each
  // chunk write that carries no size.
  WriteBehind(uint64_t limit, FanOut* fan_out, Retry retry = nullptr);

  bool enabled() const { return limit_ > 0; }
  // Faults in buffers for `limit` bytes of `chunk_size` pieces now rather than at the first
  // writes.
  void Prefault(uint64_t chunk_size);

  // Copies `bytes` (chunk span.index of file `file_id` at span.offset_in_chunk) and sends it to
  // `node` on a helper thread, with `size` when given, or, while a write of the same chunk is on
  // its way, gathers it to go after that one (without `size`, which is then not taken). Waits
  // for room under the limit. REQUIRES: enabled().
  // `file` is the file's state (kept alive while its writes are on their way).
  void Send(const std::shared_ptr<BehindState>& file, NodeService* node, uint64_t file_id, uint64_t chunk_size,
            const ChunkSpan& span, std::span<const char> bytes, std::shared_ptr<SizeAlong> size = nullptr);

  // Waits until the file's writes behind have arrived; returns (and clears) their first error
  // when `take_error`, else OK.
  static Status Wait(BehindState& file, bool take_error);
  // The same, for a caller that holds the file's lock.
  static void WaitLocked(BehindState& file, std::unique_lock<std::mutex>& lock);
  // Waits until no write behind of chunks first..last (inclusive) is on its way: a read waits
  // for the writes it would see, not for the rest of the file's.
  static void WaitChunksLocked(BehindState& file, uint64_t first, uint64_t last, std::unique_lock<std::mutex>& lock);

 private:
  // Sends `extents` of chunk `index` on a helper thread, in one call (NodeService::WriteChunkRanges).
  void Post(const std::shared_ptr<BehindState>& file, NodeService* node, uint64_t file_id, uint64_t chunk_size,
            uint64_t index, Extents extents, uint64_t bytes);
  // The write of chunk `index` is done: what gathered meanwhile goes next, or the chunk is free.
  void Finished(const std::shared_ptr<BehindState>& file, uint64_t index, uint64_t file_id, uint64_t bytes,
                const Status& s);
  void Release(uint64_t bytes);

  // A chunk write through retry_, when there is one.
  Status WriteChunk(const std::function<Status()>& write) const { return retry_ ? retry_(write) : write(); }

  const uint64_t limit_;
  FanOut* const fan_out_;
  const Retry retry_;
  std::mutex mu_;  // guards bytes_
  std::condition_variable cv_;
  uint64_t bytes_ = 0;  // bytes on their way
  // As large as the limit: every copy on its way reuses a buffer faulted in before.
  BufferPool pool_;
};

}  // namespace bb::fs
