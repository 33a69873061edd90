#include "fs/core/dir_changes.h"

#include <algorithm>

#include "fs/base/thread_name.h"

namespace bb::fs {

DirChanges::DirChanges(Send send, std::chrono::milliseconds interval) : send_(std::move(send)), interval_(interval) {
  if (interval_.count() > 0) thread_ = NamedThread("bb-dir-changes", [this] { Loop(); });
}

DirChanges::~DirChanges() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  FlushAll();
}

void DirChanges::Note(const std::string& dir, int64_t time_ns, int32_t subdirs) {
  bool first;
  {
    std::lock_guard lock(mu_);
    first = pending_.empty();
    Change& c = pending_[dir];
    c.time_ns = std::max(c.time_ns, time_ns);
    c.subdirs += subdirs;
  }
  if (first) cv_.notify_all();  // the flusher sleeps without a timeout while nothing is pending
}

void DirChanges::FlushAll() {
  std::lock_guard send_lock(send_mu_);
  std::map<std::string, Change> all;
  {
    std::lock_guard lock(mu_);
    all.swap(pending_);
  }
  for (const auto& [dir, c] : all) send_(dir, c);
}

std::optional<DirChanges::Change> DirChanges::Pending(const std::string& dir) const {
  std::lock_guard lock(mu_);
  auto it = pending_.find(dir);
  if (it == pending_.end()) return std::nullopt;
  return it->second;
}

size_t DirChanges::pending() const {
  std::lock_guard lock(mu_);
  return pending_.size();
}

void DirChanges::Loop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
    // The first change of a burst waits one interval, so the rest of the burst joins it.
    cv_.wait_for(lock, interval_, [&] { return stop_; });
    if (stop_) return;
    lock.unlock();
    FlushAll();
    lock.lock();
  }
}

}  // namespace bb::fs
