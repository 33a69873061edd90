#include "fs/core/creates/name_reservations.h"

#include "fs/base/hash.h"
#include "fs/core/placement/path.h"

namespace bb::fs {
namespace {

// The range of names below `dir` in path order: those that start with `dir` + "/".
std::string BelowPrefix(const std::string& dir) { return dir == "/" ? dir : dir + "/"; }

bool StartsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

size_t NameReservations::Stripe(const std::string& path) { return PlacementHash(path) % kStripes; }

const std::pair<const std::string, NameReservations::Leased>* NameReservations::BlockingLeaseLocked(
    const std::string& path, NodeId caller) const {
  if (leases_.empty()) return nullptr;
  auto it = leases_.find(std::string(ParentPath(path)));
  if (it == leases_.end() || (!it->second.settling && it->second.holder == caller)) return nullptr;
  return &*it;
}

bool NameReservations::MustSettleLocked(const std::string& path, NodeId caller, Intent intent) const {
  if (BlockingLeaseLocked(path, caller) != nullptr) return true;
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
  if (leases_.count(dir) != 0) return true;
  auto lease = leases_.lower_bound(prefix);
  if (lease != leases_.end() && StartsWith(lease->first, prefix)) return true;
  auto it = table_.lower_bound(prefix);
  return it != table_.end() && StartsWith(it->first, prefix);
}

void NameReservations::Settle(const std::string& path, NodeId caller, Intent intent, const Store& store) {
  if (size_.load(std::memory_order_acquire) == 0) return;
  std::unique_lock lock(mu_);
  for (;;) {
    if (const auto* lease = BlockingLeaseLocked(path, caller)) {
      if (lease->second.settling) {
        settled_.wait(lock);
      } else {
        RecallLease(lock, lease->first, store);
      }
      continue;
    }
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
  SettleLeasesBelow(dir, store);
  std::map<NodeId, std::vector<std::string>> by_holder;
  std::vector<std::string> waiting;  // settled by another request: waited for
  {
    std::lock_guard lock(mu_);
    for (auto it = table_.lower_bound(prefix); it != table_.end() && StartsWith(it->first, prefix); ++it) {
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

void NameReservations::SettleLeasesBelow(const std::string& dir, const Store& store) {
  const std::string prefix = BelowPrefix(dir);
  auto below = [&](const std::string& d) { return d == dir || StartsWith(d, prefix); };
  std::unique_lock lock(mu_);
  for (;;) {
    auto it = leases_.lower_bound(dir);
    while (it != leases_.end() && !below(it->first)) {
      it = StartsWith(it->first, dir) ? std::next(it) : leases_.end();  // "/a-b" sorts between "/a" and "/a/"
    }
    if (it == leases_.end()) return;
    if (it->second.settling) {
      settled_.wait(lock);
    } else {
      RecallLease(lock, it->first, store);
    }
  }
}

void NameReservations::RecallLease(std::unique_lock<std::mutex>& lock, const std::string& lease_dir,
                                   const Store& store) {
  const std::string dir = lease_dir;  // the key goes with the lease
  Leased& lease = leases_.at(dir);
  lease.settling = true;
  const NodeId holder = lease.holder;
  lock.unlock();
  auto made = recall_dir_ ? recall_dir_(holder, dir) : Result<std::vector<MadeEntry>>(Status(ENOSYS, dir));
  StoreHanded(holder, made, store);
  lock.lock();
  leases_.erase(dir);
  counters_.lease_recalls++;
  if (!made) counters_.recall_failed++;
  StoreSizeLocked();
  settled_.notify_all();
}

void NameReservations::StoreHanded(NodeId holder, const Result<std::vector<MadeEntry>>& made, const Store& store) {
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
  if (made) counters_.handed_over += made->size();
  int64_t now = clock_->MonotonicNs();
  for (const MadeEntry* e : in_flight) stored_[e->path] = Stored{holder, e->md.file_id, now};
  // Markers whose request never came (its node went) are dropped after a while.
  for (auto it = stored_.begin(); it != stored_.end();) {
    it = now - it->second.at_ns > kHandedOverKeepNs ? stored_.erase(it) : std::next(it);
  }
  StoreSizeLocked();
}

void NameReservations::SettleMarked(const std::map<NodeId, std::vector<std::string>>& by_holder, const Store& store) {
  for (const auto& [holder, paths] : by_holder) {
    auto made = recall_(holder, paths);
    StoreHanded(holder, made, store);
    std::lock_guard lock(mu_);
    counters_.settled += paths.size();
    if (!made) counters_.recall_failed += paths.size();
    for (const std::string& path : paths) table_.erase(path);
    StoreSizeLocked();
  }
  settled_.notify_all();
}

void NameReservations::SettleOwn(const std::string& path, NodeId holder, const Store& store) {
  auto made = recall_(holder, {path});
  StoreHanded(holder, made, store);
  std::lock_guard lock(mu_);
  counters_.settled++;
  if (!made) counters_.recall_failed++;
}

NodeId NameReservations::LeaseHolder(const std::string& dir) const {
  if (size_.load(std::memory_order_acquire) == 0) return kNoHolder;
  std::lock_guard lock(mu_);
  auto it = leases_.find(dir);
  return it == leases_.end() ? kNoHolder : it->second.holder;
}

bool NameReservations::MayLeaseLocked(const std::string& dir, NodeId holder) const {
  auto it = leases_.find(dir);
  if (it != leases_.end()) return !it->second.settling && it->second.holder == holder;
  if (leases_.size() >= kMaxLeases) return false;  // filled again meanwhile
  const std::string prefix = BelowPrefix(dir);
  for (auto r = table_.lower_bound(prefix); r != table_.end() && StartsWith(r->first, prefix); ++r) {
    if (ParentPath(r->first) == dir && (r->second.settling || r->second.holder != holder)) return false;
  }
  return true;
}

Result<DirLease> NameReservations::Lease(const std::string& dir, NodeId holder, uint64_t renew, const ListNames& list,
                                         const Store& store) {
  if (!recall_dir_ || dir.size() < 2 || dir.front() != '/' || dir.back() == '/') return DirLease{};
  for (std::unique_lock lock(mu_);;) {
    auto it = leases_.find(dir);
    if (renew != 0 && it != leases_.end() && !it->second.settling && it->second.holder == holder &&
        it->second.grant == renew) {
      return DirLease{renew, {}};  // it stood all along: nobody else made a name there since
    }
    if (it != leases_.end() || leases_.size() < kMaxLeases) break;
    // Full: the oldest lease goes (its holder may have forgotten it, or moved on).
    auto oldest = leases_.end();
    for (auto l = leases_.begin(); l != leases_.end(); ++l) {
      if (!l->second.settling && (oldest == leases_.end() || l->second.grant < oldest->second.grant)) oldest = l;
    }
    if (oldest == leases_.end()) return DirLease{};
    RecallLease(lock, oldest->first, store);
  }
  // Every make under way here ends first, and none begins until the lease stands (MayMake).
  std::array<std::unique_lock<std::mutex>, kStripes> all;
  for (size_t i = 0; i < kStripes; ++i) all[i] = std::unique_lock(stripes_[i]);
  {
    std::lock_guard lock(mu_);
    if (!MayLeaseLocked(dir, holder)) return DirLease{};
  }
  BB_ASSIGN_OR_RETURN(std::vector<std::string> names, list(kMaxLeaseNames + 1));
  if (names.size() > kMaxLeaseNames) return DirLease{};
  std::lock_guard lock(mu_);
  if (!MayLeaseLocked(dir, holder)) return DirLease{};
  uint64_t grant = next_grant_++;
  leases_[dir] = Leased{holder, grant, false};
  counters_.leased++;
  StoreSizeLocked();
  return DirLease{grant, std::move(names)};
}

bool NameReservations::MayMake(const std::string& path, NodeId caller) const {
  if (size_.load(std::memory_order_acquire) == 0) return true;
  std::lock_guard lock(mu_);
  if (BlockingLeaseLocked(path, caller) != nullptr) return false;
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

void NameReservations::StoreSizeLocked() {
  size_.store(table_.size() + stored_.size() + leases_.size(), std::memory_order_release);
}

NameReservations::Counters NameReservations::counters() const {
  std::lock_guard lock(mu_);
  Counters c = counters_;
  c.held = table_.size();
  c.leases_held = leases_.size();
  return c;
}

}  // namespace bb::fs
