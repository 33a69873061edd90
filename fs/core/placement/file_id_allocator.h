// FileIdAllocator: hands out stable file ids, unique across nodes and restarts.
//
// An id is (node id + 1) << 48 | counter. Counters are reserved from the node's MetaStore in
// blocks (one synced write per block), so a restart skips at most the rest of a block and never
// reuses an id. Id 1 (node bits 0) is the root directory. NextWhere skips ids that do not suit
// (a mode that places a file's first chunk with its entry, layout.h): about one per node per
// file, so 2^48 counters last a 1,000-node instance 2^38 files per node.
//
// Thread-safety: Next() may be called concurrently.
#pragma once

#include <cstdint>
#include <mutex>

#include "fs/base/status.h"
#include "fs/store/meta_store.h"

namespace bb::fs {

class FileIdAllocator {
 public:
  // `store` must outlive the allocator. REQUIRES: node_id < 65535.
  FileIdAllocator(MetaStore* store, uint32_t node_id) : store_(store), node_id_(node_id) {}

  // A fresh id; EIO/ENOSPC when a new block cannot be recorded.
  Result<uint64_t> Next() {
    return NextWhere([](uint64_t) { return true; }, 1);
  }
  // The first fresh id for which `suits` holds, of at most `tries` (the ids tried are used up);
  // the first one tried when none did. REQUIRES: tries > 0; `suits` is cheap and locks nothing.
  template <typename Suits>
  Result<uint64_t> NextWhere(Suits&& suits, uint32_t tries);

 private:
  // Reserves another block when the counters are used up (and loads them first).
  Status Reserve();

  static constexpr uint64_t kBlock = 1 << 20;
  static constexpr uint64_t kCounterEnd = uint64_t{1} << 48;  // the node bits start here
  MetaStore* const store_;
  const uint32_t node_id_;
  std::mutex mu_;       // guards the two counters
  uint64_t next_ = 0;   // next counter to hand out
  uint64_t limit_ = 0;  // first counter not yet reserved (0 = not loaded)
};

template <typename Suits>
Result<uint64_t> FileIdAllocator::NextWhere(Suits&& suits, uint32_t tries) {
  std::lock_guard lock(mu_);
  uint64_t first = 0;
  for (uint32_t i = 0; i < tries; ++i) {
    BB_RETURN_IF_ERROR(Reserve());
    uint64_t id = (static_cast<uint64_t>(node_id_) + 1) << 48 | next_++;
    if (suits(id)) return id;
    if (i == 0) first = id;
  }
  return first;
}

}  // namespace bb::fs
