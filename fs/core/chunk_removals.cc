#include "fs/core/chunk_removals.h"

#include <algorithm>

namespace bb::fs {

ChunkRemovals::ChunkRemovals(Send send, std::chrono::milliseconds interval, size_t capacity)
    : send_(std::move(send)), capacity_(capacity), flusher_("bb-chunk-rm", interval, [this] { (void)Flush(); }) {}

ChunkRemovals::~ChunkRemovals() {
  flusher_.Stop();
  (void)Flush();
}

bool ChunkRemovals::Note(NodeId node, uint64_t file_id) {
  bool first;
  {
    std::lock_guard lock(mu_);
    if (pending_count_ >= capacity_) return false;
    first = pending_count_ == 0;
    pending_[node].push_back(file_id);
    ++pending_count_;
  }
  noted_.fetch_add(1, std::memory_order_relaxed);
  if (first) flusher_.Wake();
  return true;
}

Status ChunkRemovals::Flush() {
  std::lock_guard send_lock(send_mu_);
  std::map<NodeId, std::vector<uint64_t>> all;
  {
    std::lock_guard lock(mu_);
    all.swap(pending_);
    pending_count_ = 0;
  }
  Status first;
  for (const auto& [node, ids] : all) {
    for (size_t at = 0; at < ids.size(); at += kMaxBatch) {
      std::vector<uint64_t> batch(ids.begin() + at, ids.begin() + std::min(ids.size(), at + kMaxBatch));
      batches_.fetch_add(1, std::memory_order_relaxed);
      Status s = send_(node, batch);
      if (s.ok()) continue;
      failed_.fetch_add(batch.size(), std::memory_order_relaxed);
      if (first.ok()) first = s.Annotate("node " + std::to_string(node));
    }
  }
  return first;
}

size_t ChunkRemovals::pending() const {
  std::lock_guard lock(mu_);
  return pending_count_;
}

ChunkRemovals::Counters ChunkRemovals::counters() const {
  return {noted_.load(std::memory_order_relaxed), batches_.load(std::memory_order_relaxed),
          failed_.load(std::memory_order_relaxed)};
}

}  // namespace bb::fs
