// The pieces of one read, write or fallocate over a file's chunks, for the core's file
// operations (file_io.cc, fallocate.cc): which nodes it touched, and its per-chunk calls run at
// the same time.
//
// Thread-safety: both are used by one thread, for one request.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "fs/base/status.h"
#include "fs/core/data/fan_out.h"
#include "fs/core/placement/layout.h"

namespace bb::fs {

// The distinct nodes one request touched; no allocation for the usual one or few.
class TouchedNodes {
 public:
  void Add(NodeId n) {
    for (size_t i = 0; i < count_ && i < kInline; ++i) {
      if (inline_[i] == n) return;
    }
    if (count_ < kInline) {
      inline_[count_++] = n;
    } else {
      more_.insert(n);
    }
  }
  void InsertInto(std::set<NodeId>* out) const {
    out->insert(inline_.begin(), inline_.begin() + count_);
    out->insert(more_.begin(), more_.end());
  }

 private:
  static constexpr size_t kInline = 4;
  std::array<NodeId, kInline> inline_{};
  size_t count_ = 0;
  std::set<NodeId> more_;
};

// The chunk pieces of one read, write or fallocate. A range inside one chunk runs its piece at
// once on the calling thread (no task built: the common small request pays nothing); a longer
// range collects its pieces and Run() moves them at the same time on the fan-out.
class ChunkPieces {
 public:
  ChunkPieces(FanOut* fan_out, uint64_t offset, uint64_t length, uint64_t chunk_size)
      : fan_out_(fan_out), one_chunk_(length == 0 || offset / chunk_size == (offset + length - 1) / chunk_size) {}

  template <typename Piece>
  Status Add(Piece&& piece) {
    if (one_chunk_) return piece();
    tasks_.emplace_back(std::forward<Piece>(piece));
    return Status::Ok();
  }
  // Returns the first failure in chunk order.
  Status Run() { return tasks_.empty() ? Status::Ok() : fan_out_->Run(tasks_); }

 private:
  FanOut* const fan_out_;
  const bool one_chunk_;
  std::vector<FanOut::Task> tasks_;
};

}  // namespace bb::fs
