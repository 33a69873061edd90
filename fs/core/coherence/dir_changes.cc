#include "fs/core/coherence/dir_changes.h"

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
  uint64_t flush;
  {
    std::lock_guard lock(mu_);
    if (pending_.empty()) return;
    flush = Flushes() + 1;
    for (const auto& [dir, c] : pending_) {
      Taken& t = taken_[dir];
      t = Taken{flush, std::max(t.time_ns, c.time_ns), t.counts || c.subdirs != 0};
    }
    std::erase_if(taken_, [&](const auto& t) { return flush - t.second.flush > kKeepFlushes; });
    all.swap(pending_);
    state_.store(flush * 2 + 1, std::memory_order_release);
  }
  for (const auto& [dir, c] : all) send_(dir, c);
  std::lock_guard lock(mu_);
  state_.store(flush * 2, std::memory_order_release);
}

uint64_t DirChanges::Begin() const {
  // A flush on its way counts as one after the read began.
  const uint64_t s = state_.load(std::memory_order_acquire);
  return s / 2 - s % 2;
}

std::optional<DirChanges::Change> DirChanges::After(const std::string& dir, uint64_t token) const {
  std::lock_guard lock(mu_);
  const uint64_t flushes = Flushes();
  auto it = pending_.find(dir);
  Change add = it == pending_.end() ? Change{} : it->second;
  if (flushes != token) {
    if (flushes - token >= kKeepFlushes) return std::nullopt;  // too long ago to tell
    auto taken = taken_.find(dir);
    if (taken != taken_.end() && taken->second.flush > token) {
      if (taken->second.counts) return std::nullopt;  // a count must be added once: read again
      // A time applies as "no earlier than": added again, it changes nothing.
      add.time_ns = std::max(add.time_ns, taken->second.time_ns);
    }
  }
  return add;
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
