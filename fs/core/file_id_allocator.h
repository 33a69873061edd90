// FileIdAllocator: hands out stable file ids, unique across nodes and restarts.
//
// An id is (node id + 1) << 48 | counter. Counters are reserved from the node's MetaStore in
// blocks (one synced write per block), so a restart skips at most the rest of a block and never
// reuses an id. Id 1 (node bits 0) is the root directory.
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
  Result<uint64_t> Next();

 private:
  static constexpr uint64_t kBlock = 1 << 16;
  MetaStore* const store_;
  const uint32_t node_id_;
  std::mutex mu_;       // guards the two counters
  uint64_t next_ = 0;   // next counter to hand out
  uint64_t limit_ = 0;  // first counter not yet reserved (0 = not loaded)
};

}  // namespace bb::fs
