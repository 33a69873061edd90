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
// files wait; past it the caller removes the chunks itself.
//
// With a journal (the node's MetaStore), a removal is written there before Note returns and
// erased once its node confirmed it, so none is lost:
//   - a daemon killed before a batch went sends it at its next start;
//   - a removal that failed (its node down: counted, `bbctl stats` chunk_removals.failed) is sent
//     again kRetryAfter later by the flusher thread (or by the first flush after that: new
//     removals, a statfs, the next start), then at intervals that double up to kRetryMax while
//     its node keeps failing, until the node confirms it.
// The journal's writes are not synced: they outlive the daemon, not the machine (neither do the
// chunks' pages). Without a journal, such chunks stay until their workspace goes.
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
#include "fs/core/data/interval_flusher.h"
#include "fs/core/placement/layout.h"
#include "fs/store/meta_store.h"

namespace bb::fs {

class ChunkRemovals {
 public:
  using Send = std::function<Status(NodeId node, const std::vector<uint64_t>& file_ids)>;
  struct Counters {
    uint64_t noted = 0;    // files whose chunks went behind their unlink
    uint64_t batches = 0;  // requests that carried them
    uint64_t failed = 0;   // files whose removal failed
  };

  // `interval` 0: no flusher thread (what is noted waits for Flush). `journal` (may be null; must
  // outlive this): where removals are kept until confirmed; those it holds from an earlier run
  // are sent with the first flush (at once when there is a flusher thread).
  ChunkRemovals(Send send, std::chrono::milliseconds interval, size_t capacity, MetaStore* journal = nullptr);
  ~ChunkRemovals();  // sends what is noted
  ChunkRemovals(const ChunkRemovals&) = delete;
  ChunkRemovals& operator=(const ChunkRemovals&) = delete;

  // Notes that the chunks `node` holds of `file_id` are to go. False (nothing noted) when
  // `capacity` files wait already.
  bool Note(NodeId node, uint64_t file_id);
  // Files per request, at most.
  static constexpr size_t kMaxBatch = 4096;
  // How long a failed removal waits before it is sent again, the first time and at most.
  static constexpr std::chrono::milliseconds kRetryAfter{1000};
  static constexpr std::chrono::milliseconds kRetryMax{30000};
  // Sends everything noted before the call, and the failed removals due again; returns once it
  // was sent, with the first error.
  Status Flush();
  size_t pending() const;
  // Removals that failed and wait to be sent again (in memory; the journal keeps them all).
  size_t retrying() const;
  Counters counters() const;

  // The journal's key of a removal (system keys start with 'S', fs/store/metadata.h).
  static std::string JournalKey(NodeId node, uint64_t file_id);

 private:
  using Removals = std::map<NodeId, std::vector<uint64_t>>;
  void LoadJournal();
  void Forget(NodeId node, const std::vector<uint64_t>& ids);

  const Send send_;
  const size_t capacity_;
  MetaStore* const journal_;
  mutable std::mutex mu_;  // guards the fields below
  Removals pending_;
  size_t pending_count_ = 0;
  Removals retry_;  // sent and failed, to be sent again at retry_at_
  size_t retry_count_ = 0;
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds retry_after_ = kRetryAfter;  // doubles while sends keep failing
  std::mutex send_mu_;                                   // one batch at a time
  std::atomic<uint64_t> noted_{0}, batches_{0}, failed_{0};
  IntervalFlusher flusher_;  // last: its thread uses the members above
};

}  // namespace bb::fs
