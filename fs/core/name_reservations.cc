#include "fs/core/name_reservations.h"

#include "fs/base/hash.h"

namespace bb::fs {
namespace {

// The range of names below `dir` in path order: those that start with `dir` + "/".
std::string BelowPrefix(const std::string& dir) { return dir == "/" ? dir : dir + "/"; }

}  // namespace

size_t NameReservations::Stripe(const std::string& path) { return PlacementHash(path) % kStripes; }

bool NameReservations::MustSettleLocked(const std::string& path, NodeId caller, Intent intent) const {
  auto it = table_.find(path);
  if (it == table_.end()) return false;
  return it->second.settling || intent == Intent::kRead || it->second.holder != caller;
}

bool NameReservations::MustSettle(const std::string& path, NodeId caller, Intent intent) const {
  if (size_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mu_);
  return MustSettleLocked(path, caller, intent);
}

bool NameReservations::MustSettleBelow(const std::string& dir) const {
  if (size_.load(std::memory_order_acquire) == 0) return false;
  std::string prefix = BelowPrefix(dir);
  std::lock_guard lock(mu_);
  auto it = table_.lower_bound(prefix);
  return it != table_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

void NameReservations::Settle(const std::string& path, NodeId caller, Intent intent, const Store& store) {
  if (size_.load(std::memory_order_acquire) == 0) return;
  std::unique_lock lock(mu_);
  for (;;) {
    auto it = table_.find(path);
    if (it == table_.end()) return;
    if (it->second.settling) {
      settled_.wait(lock);
      continue;
    }
    if (!MustSettleLocked(path, caller, intent)) return;
    it->second.settling = true;
    std::map<NodeId, std::vector<std::string>> by_holder{{it->second.holder, {path}}};
    lock.unlock();
    SettleMarked(by_holder, store);
    return;
  }
}

void NameReservations::SettleBelow(const std::string& dir, const Store& store) {
  if (size_.load(std::memory_order_acquire) == 0) return;
  std::string prefix = BelowPrefix(dir);
  std::map<NodeId, std::vector<std::string>> by_holder;
  std::vector<std::string> waiting;  // settled by another request: waited for
  {
    std::lock_guard lock(mu_);
    for (auto it = table_.lower_bound(prefix); it != table_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
         ++it) {
      if (it->second.settling) {
        waiting.push_back(it->first);
      } else {
        it->second.settling = true;
        by_holder[it->second.holder].push_back(it->first);
      }
    }
  }
  if (!by_holder.empty()) SettleMarked(by_holder, store);
  std::unique_lock lock(mu_);
  for (const std::string& path : waiting) {
    settled_.wait(lock, [&] {
      auto it = table_.find(path);
      return it == table_.end() || !it->second.settling;
    });
  }
}

void NameReservations::SettleMarked(const std::map<NodeId, std::vector<std::string>>& by_holder, const Store& store) {
  for (const auto& [holder, paths] : by_holder) {
    auto made = recall_(holder, paths);
    // A holder that cannot be reached (gone, or cut off past its deadline) made nothing that
    // counts (recall_failed): the names are free again. Should it come back with an entry still to
    // send, that entry is made then if the name is still free (MakeEntries), else refused.
    std::vector<const MadeEntry*> in_flight;
    if (made) {
      for (const MadeEntry& e : *made) {
        store(holder, e);
        if (e.in_flight) in_flight.push_back(&e);
      }
    }
    std::lock_guard lock(mu_);
    counters_.settled += paths.size();
    if (!made) counters_.recall_failed += paths.size();
    if (made) counters_.handed_over += made->size();
    for (const std::string& path : paths) table_.erase(path);
    int64_t now = clock_->MonotonicNs();
    for (const MadeEntry* e : in_flight) stored_[e->path] = Stored{holder, e->md.file_id, now};
    // Markers whose request never came (its node went) are dropped after a while.
    for (auto it = stored_.begin(); it != stored_.end();) {
      it = now - it->second.at_ns > kHandedOverKeepNs ? stored_.erase(it) : std::next(it);
    }
    StoreSizeLocked();
  }
  settled_.notify_all();
}

bool NameReservations::MayMake(const std::string& path, NodeId caller) const {
  if (size_.load(std::memory_order_acquire) == 0) return true;
  std::lock_guard lock(mu_);
  auto it = table_.find(path);
  return it == table_.end() || (!it->second.settling && it->second.holder == caller);
}

void NameReservations::Made(const std::string& path, NodeId caller) {
  if (size_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard lock(mu_);
  auto it = table_.find(path);
  if (it == table_.end() || it->second.settling || it->second.holder != caller) return;  // settling ends it
  table_.erase(it);
  StoreSizeLocked();
}

uint64_t NameReservations::Reserve(const std::string& path, NodeId holder) {
  std::lock_guard lock(mu_);
  uint64_t grant = next_grant_++;
  table_[path] = Reservation{holder, grant, false};
  counters_.granted++;
  StoreSizeLocked();
  return grant;
}

void NameReservations::Release(const std::string& path, NodeId holder, uint64_t grant) {
  std::lock_guard lock(mu_);
  auto it = table_.find(path);
  if (it == table_.end() || it->second.settling || it->second.holder != holder || it->second.grant != grant) return;
  table_.erase(it);
  StoreSizeLocked();
}

bool NameReservations::HandedOver(const std::string& path, NodeId holder, uint64_t file_id) {
  if (size_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(mu_);
  auto it = stored_.find(path);
  if (it == stored_.end() || it->second.holder != holder || it->second.file_id != file_id) return false;
  stored_.erase(it);
  StoreSizeLocked();
  return true;
}

void NameReservations::StoreSizeLocked() { size_.store(table_.size() + stored_.size(), std::memory_order_release); }

NameReservations::Counters NameReservations::counters() const {
  std::lock_guard lock(mu_);
  Counters c = counters_;
  c.held = table_.size();
  return c;
}

}  // namespace bb::fs
