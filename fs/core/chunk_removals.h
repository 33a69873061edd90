// ChunkRemovals: the chunks of removed small files, freed on their nodes behind the unlink.
//
// An unlink (or the last close of an unlinked file) of a file whose data is one chunk on another
// node would wait for a second round trip, to that node, after the one to the entry's owner. As
// local file systems free a removed inode's blocks in the background, the removal is noted here
// instead and sent within `interval`, one request per node for every file noted meanwhile
// (NodeService::RemoveFiles): `rm -r` of small files, or mdtest's delete phases, wait for one round
// trip per file, and the chunks cost one per node per interval. A file id is never reused, so
// chunks that outlive their entry by an interval are never read. What was noted reaches its node
// before a statfs answers (Flush), so `df` after `rm` counts the space free. At most `capacity`
// files wait; past it the caller removes the chunks itself. A removal that fails (its node down)
// is counted (`bbctl stats`: chunk_removals.failed): those chunks stay until their workspace goes
// (job stop frees every node's data of it), as do those noted when a daemon is killed.
//
// Thread-safety: every method may be called from any thread; `send` runs on the flusher's thread
// or in Flush, one batch at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "fs/base/status.h"
#include "fs/core/interval_flusher.h"
#include "fs/core/layout.h"

namespace bb::fs {

class ChunkRemovals {
 public:
  using Send = std::function<Status(NodeId node, const std::vector<uint64_t>& file_ids)>;
  struct Counters {
    uint64_t noted = 0;    // files whose chunks went behind their unlink
    uint64_t batches = 0;  // requests that carried them
    uint64_t failed = 0;   // files whose removal failed
  };

  // `interval` 0: no flusher thread (what is noted waits for Flush).
  ChunkRemovals(Send send, std::chrono::milliseconds interval, size_t capacity);
  ~ChunkRemovals();  // sends what is noted
  ChunkRemovals(const ChunkRemovals&) = delete;
  ChunkRemovals& operator=(const ChunkRemovals&) = delete;

  // Notes that the chunks `node` holds of `file_id` are to go. False (nothing noted) when
  // `capacity` files wait already.
  bool Note(NodeId node, uint64_t file_id);
  // Files per request, at most.
  static constexpr size_t kMaxBatch = 4096;
  // Sends everything noted before the call; returns once it was sent, with the first error.
  Status Flush();
  size_t pending() const;
  Counters counters() const;

 private:
  const Send send_;
  const size_t capacity_;
  mutable std::mutex mu_;  // guards pending_ and pending_count_
  std::map<NodeId, std::vector<uint64_t>> pending_;
  size_t pending_count_ = 0;
  std::mutex send_mu_;  // one batch at a time
  std::atomic<uint64_t> noted_{0}, batches_{0}, failed_{0};
  IntervalFlusher flusher_;  // last: its thread uses the members above
};

}  // namespace bb::fs
