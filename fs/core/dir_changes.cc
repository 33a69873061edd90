#include "fs/core/dir_changes.h"

#include <algorithm>

namespace bb::fs {

DirChanges::DirChanges(Send send, std::chrono::milliseconds interval)
    : send_(std::move(send)), flusher_("bb-dir-changes", interval, [this] { FlushAll(); }) {}

DirChanges::~DirChanges() {
  flusher_.Stop();
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
  if (first) flusher_.Wake();
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

}  // namespace bb::fs
