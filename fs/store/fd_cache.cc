#include "fs/store/fd_cache.h"

namespace bb::fs {

FdRef FdCache::Find(const SegmentKey& key) {
  std::lock_guard lock(mu_);
  auto it = open_.find(key);
  if (it == open_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
  return it->second.fd;
}

FdRef FdCache::Insert(const SegmentKey& key, FdRef fd) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = open_.try_emplace(key);
  if (!inserted) {  // another thread opened it meanwhile; use theirs
    lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
    return it->second.fd;
  }
  lru_.push_front(key);
  it->second = {fd, lru_.begin()};
  while (open_.size() > max_open_) {
    open_.erase(lru_.back());
    lru_.pop_back();
  }
  return fd;
}

void FdCache::Forget(uint64_t file_id) {
  std::lock_guard lock(mu_);
  auto it = open_.lower_bound({file_id, 0});
  while (it != open_.end() && it->first.first == file_id) {
    lru_.erase(it->second.lru_pos);
    it = open_.erase(it);
  }
}

}  // namespace bb::fs
