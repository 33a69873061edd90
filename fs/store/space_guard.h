// SpaceGuard: answers "is there room for N more bytes?" for one backing filesystem, keeping a
// reserve free so the metadata database can always record what was stored (a LevelDB write that
// fails for space costs a reopen of the database: leveldb_meta_store.cc).
//
// statvfs is consulted when the cached answer might be wrong: the cache is trusted only while
// the bytes granted since the last look stay well below the free space seen then.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "fs/base/status.h"

namespace bb::fs {

// Bytes an unprivileged writer may still use on the filesystem holding `dir` (statvfs); EIO when
// statvfs fails.
Result<uint64_t> FreeBytes(const std::string& dir);

class SpaceGuard {
 public:
  // `dir`: any path on the backing filesystem; must stay valid for the guard's life.
  SpaceGuard(std::string dir, uint64_t reserve_bytes) : dir_(std::move(dir)), reserve_(reserve_bytes) {}

  // OK when `bytes` more fit above the reserve; ENOSPC when they do not; EIO when statvfs fails.
  Status Check(uint64_t bytes);

  uint64_t reserve_bytes() const { return reserve_; }

 private:
  const std::string dir_;
  const uint64_t reserve_;
  std::mutex mu_;  // guards the two fields below
  uint64_t free_at_last_look_ = 0;
  uint64_t granted_since_look_ = 0;
};

}  // namespace bb::fs
