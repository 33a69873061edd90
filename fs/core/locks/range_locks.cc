#include "fs/core/locks/range_locks.h"

#include <algorithm>
#include <iterator>

namespace bb::fs {
namespace {

bool Overlap(const RangeLock& a, const RangeLock& b) { return a.start <= b.end && b.start <= a.end; }

// Whether `a` and `b` overlap or touch (b starts right after a ends, or the other way round).
bool Meet(const RangeLock& a, const RangeLock& b) {
  return Overlap(a, b) || (a.end != kLockToEnd && a.end + 1 == b.start) ||
         (b.end != kLockToEnd && b.end + 1 == a.start);
}

}  // namespace

std::optional<RangeLock> RangeLocks::Conflict(const RangeLock& want) const {
  if (want.type == LockType::kUnlock) return std::nullopt;
  for (const RangeLock& held : locks_) {
    if (held.owner == want.owner || held.owner.flock != want.owner.flock || !Overlap(held, want)) continue;
    if (held.type == LockType::kWrite || want.type == LockType::kWrite) return held;
  }
  return std::nullopt;
}

std::optional<RangeLock> RangeLocks::Set(const RangeLock& want) {
  // A flock owner's lock is converted as Linux and BSD do: the old one goes first, so that two
  // holders of LOCK_SH that both ask for LOCK_EX do not wait for each other for ever.
  if (want.owner.flock) std::erase_if(locks_, [&](const RangeLock& held) { return held.owner == want.owner; });
  if (auto other = Conflict(want)) return other;
  // What the owner held over the range goes; the parts of it outside the range stay.
  std::vector<RangeLock> kept;
  kept.reserve(locks_.size() + 1);
  for (const RangeLock& held : locks_) {
    if (!(held.owner == want.owner) || !Overlap(held, want)) {
      kept.push_back(held);
      continue;
    }
    if (held.start < want.start) {
      RangeLock left = held;
      left.end = want.start - 1;
      kept.push_back(left);
    }
    if (held.end > want.end) {
      RangeLock right = held;
      right.start = want.end + 1;
      kept.push_back(right);
    }
  }
  if (want.type != LockType::kUnlock) {
    // One lock with the owner's locks of its type that touch it.
    RangeLock merged = want;
    std::erase_if(kept, [&](const RangeLock& held) {
      if (!(held.owner == want.owner) || held.type != want.type || !Meet(held, merged)) return false;
      merged.start = std::min(merged.start, held.start);
      merged.end = std::max(merged.end, held.end);
      return true;
    });
    kept.push_back(merged);
  }
  locks_ = std::move(kept);
  return std::nullopt;
}

void RangeLocks::Force(const RangeLock& want) {
  if (want.type != LockType::kUnlock) {
    // The conflicting locks keep their parts outside the range.
    std::vector<RangeLock> kept;
    kept.reserve(locks_.size() + 2);
    for (const RangeLock& held : locks_) {
      bool conflicts = !(held.owner == want.owner) && held.owner.flock == want.owner.flock && Overlap(held, want) &&
                       (held.type == LockType::kWrite || want.type == LockType::kWrite);
      if (!conflicts) {
        kept.push_back(held);
        continue;
      }
      if (held.start < want.start)
        kept.push_back(RangeLock{held.owner, held.type, held.start, want.start - 1, held.pid});
      if (held.end > want.end) kept.push_back(RangeLock{held.owner, held.type, want.end + 1, held.end, held.pid});
    }
    locks_ = std::move(kept);
  }
  (void)Set(want);  // nothing conflicts now
}

void RangeLocks::Release(const LockOwner& owner, bool node_wide) {
  std::erase_if(locks_,
                [&](const RangeLock& held) { return node_wide ? held.owner.node == owner.node : held.owner == owner; });
}

Result<std::optional<RangeLock>> LockTables::Lock(uint64_t file_id, const RangeLock& want, bool test) {
  if (file_id == kAllFiles) {
    if (!test && want.type == LockType::kUnlock) ReleaseNode(want.owner.node);
    return std::optional<RangeLock>();
  }
  std::lock_guard lock(mu_);
  if (recovering_) return Status(EINPROGRESS, "this node is taking back its locks after a restart");
  return SetLocked(file_id, want, test);
}

Result<std::optional<RangeLock>> LockTables::SetLocked(uint64_t file_id, const RangeLock& want, bool test,
                                                       bool bounded) {
  using Answer = std::optional<RangeLock>;
  auto it = files_.find(file_id);
  if (test) return it == files_.end() ? Answer() : it->second.Conflict(want);
  if (it == files_.end()) {
    if (want.type == LockType::kUnlock) return Answer();
    if (files_.size() >= kMaxFiles) return Status(ENOLCK, "locks of " + std::to_string(kMaxFiles) + " files held");
    it = files_.emplace(file_id, RangeLocks()).first;
  }
  RangeLocks& file = it->second;
  // A set or an unlock of part of a lock may split it in two: at the bound, only an unlock of the
  // whole file (a close) goes on.
  bool whole_unlock = want.type == LockType::kUnlock && want.start == 0 && want.end == kLockToEnd;
  if (bounded && file.locks().size() >= kMaxPerFile && !whole_unlock) {
    return Status(ENOLCK, "file " + std::to_string(file_id) + " has " + std::to_string(kMaxPerFile) + " locks");
  }
  Answer other = file.Set(want);
  if (file.empty()) files_.erase(it);
  return other;
}

void LockTables::ReleaseNode(uint32_t node) {
  std::lock_guard lock(mu_);
  for (auto it = files_.begin(); it != files_.end();) {
    it->second.Release(LockOwner{node, 0}, true);
    it = it->second.empty() ? files_.erase(it) : std::next(it);
  }
}

size_t LockTables::files() const {
  std::lock_guard lock(mu_);
  return files_.size();
}

void LockTables::BeginRecovery() {
  std::lock_guard lock(mu_);
  recovering_ = true;
}

Status LockTables::TakeBack(uint64_t file_id, const RangeLock& lock) {
  if (file_id == kAllFiles || lock.type == LockType::kUnlock) return Status(EINVAL, "not a lock to take back");
  std::lock_guard guard(mu_);
  if (auto it = files_.find(file_id); it != files_.end()) {
    // Not Set: a flock owner's lock is never converted here, whatever it conflicts with.
    if (auto other = it->second.Conflict(lock)) {
      return Status(EDEADLK, "file " + std::to_string(file_id) + ": node " + std::to_string(lock.owner.node) +
                                 "'s lock conflicts with node " + std::to_string(other->owner.node) + "'s");
    }
  }
  return SetLocked(file_id, lock, false, /*bounded=*/false).status();
}

void LockTables::EndRecovery() {
  std::lock_guard lock(mu_);
  recovering_ = false;
}

bool LockTables::recovering() const {
  std::lock_guard lock(mu_);
  return recovering_;
}

void HeldLocks::Note(uint32_t keeper, uint64_t file_id, const RangeLock& want, bool refused) {
  std::lock_guard lock(mu_);
  auto it = files_.find(file_id);
  if (it == files_.end()) {
    if (refused || want.type == LockType::kUnlock) return;
    it = files_.emplace(file_id, File{keeper, {}}).first;
  }
  if (!refused) {
    it->second.locks.Force(want);
  } else if (want.owner.flock) {
    it->second.locks.Release(want.owner);
  }
  if (it->second.locks.empty()) files_.erase(it);
}

HeldLockPage HeldLocks::KeptBy(uint32_t keeper, uint64_t after, size_t limit) const {
  std::lock_guard lock(mu_);
  HeldLockPage page;
  for (auto it = files_.upper_bound(after); it != files_.end(); ++it) {
    if (it->second.keeper != keeper) continue;
    if (page.locks.size() >= limit) {
      page.more = true;
      break;
    }
    for (const RangeLock& l : it->second.locks.locks()) page.locks.push_back({it->first, l});
  }
  return page;
}

}  // namespace bb::fs
