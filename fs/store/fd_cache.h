// Private to fs/store: the open segment files of the posix chunk store, an LRU of shared
// handles. A handle is closed only when the cache has dropped it and no read or write in
// flight still holds it, so eviction never closes a descriptor under a concurrent pread/pwrite.
//
// Thread-safety: every method may be called concurrently; no lock is held across a syscall
// (closing a dropped handle happens when its last holder lets go).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace bb::fs {

struct Fd {
  explicit Fd(int f) : fd(f) {}
  ~Fd() { ::close(fd); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  const int fd;
};
using FdRef = std::shared_ptr<Fd>;
using SegmentKey = std::pair<uint64_t, uint64_t>;  // (file id, segment)

class FdCache {
 public:
  explicit FdCache(size_t max_open) : max_open_(max_open < 16 ? 16 : max_open) {}

  // The cached handle of `key` (now the most recently used), or null.
  FdRef Find(const SegmentKey& key);
  // Caches `fd` for `key` and returns it — or, when another thread cached one meanwhile, that
  // one (and `fd` closes when the caller drops it). Evicts the least recently used beyond the
  // limit.
  FdRef Insert(const SegmentKey& key, FdRef fd);
  // Drops the cached handles of every segment of `file_id`.
  void Forget(uint64_t file_id);

 private:
  struct Entry {
    FdRef fd;
    std::list<SegmentKey>::iterator lru_pos;
  };
  const size_t max_open_;
  std::mutex mu_;  // guards open_ and lru_
  std::map<SegmentKey, Entry> open_;
  std::list<SegmentKey> lru_;  // most recently used first
};

}  // namespace bb::fs
