// Record locks and flock(2) locks of open files, for the cluster: the node a file's locks live on
// answers every node's requests for them (NodeService::Lock), so a lock set on one node holds
// against a process on any other. An unlock publishes the file's writes first (unlock-to-lock consistency). A blocked
// F_SETLKW is the caller's to try again (the FUSE adapter does, without holding a worker thread).
#include <algorithm>
#include <chrono>
#include <thread>

#include "fs/base/hash.h"
#include "fs/core/data/write_behind.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"

namespace bb::fs {
namespace {

// How long a lock request waits for a keeper that recovers its locks (RecoverLocks), which takes
// as long as its holders take to answer.
constexpr auto kRecoveryWait = std::chrono::seconds(30);

uint64_t FileIdOf(const OpenFile* file) {
  std::lock_guard lock(file->inode->mu);
  return file->inode->meta.file_id;
}

}  // namespace

NodeId FileSystem::LockNode(const OpenFile* file) const { return LockNodeOf(file, FileIdOf(file)); }

NodeId FileSystem::LockNodeOf(const OpenFile* file, uint64_t file_id) const {
  if (file->node_private) return self_;
  return static_cast<NodeId>(Mix64(file_id ^ 0x6c6f636bULL) % router_->view().nodes);
}

Result<std::optional<RangeLock>> FileSystem::AskLockNode(OpenFile* file, RangeLock want, bool test,
                                                         bool wait_recovery) {
  want.owner.node = self_;
  uint64_t id = FileIdOf(file);
  const NodeId keeper = LockNodeOf(file, id);
  auto other = nodes_(keeper)->Lock(id, want, test);
  // A keeper whose daemon started again answers once it has its locks back from their holders.
  const auto give_up = std::chrono::steady_clock::now() + kRecoveryWait;
  while (wait_recovery && !other && other.error().code() == EINPROGRESS) {
    if (std::chrono::steady_clock::now() > give_up) {
      other = Status(ENOLCK, "node " + std::to_string(keeper) + " is still taking back its locks after a restart");
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    other = nodes_(keeper)->Lock(id, want, test);
  }
  if (!test && keeper != self_ && (other || want.type == LockType::kUnlock)) {
    held_locks_.Note(keeper, id, want, other && other->has_value());
  }
  // Processes of this node waiting for the owner's locks look again at their next try (their
  // record of waiting for it is gone: WaitingFor), as a wait is woken by an unlock on Linux.
  if (!test && want.type == LockType::kUnlock) WaitsEnd(want.owner);
  if (!other) return other.error();
  if (*other && (*other)->owner.node != self_) (*other)->pid = 0;  // no process of this node
  return other;
}

Result<std::optional<RangeLock>> FileSystem::TestLock(OpenFile* file, RangeLock want) {
  Count(FsOp::kGetLk);
  return AskLockNode(file, want, true);
}

Result<std::optional<RangeLock>> FileSystem::SetLock(OpenFile* file, RangeLock want, bool wait_recovery) {
  Count(FsOp::kSetLk);
  return SetRange(file, want, wait_recovery);
}

Result<bool> FileSystem::Flock(OpenFile* file, uint64_t owner, LockType type, bool wait_recovery) {
  Count(FsOp::kFlock);
  BB_ASSIGN_OR_RETURN(auto other,
                      SetRange(file, RangeLock{{self_, owner, true}, type, 0, kLockToEnd, 0}, wait_recovery));
  return !other.has_value();
}

Result<std::optional<RangeLock>> FileSystem::SetRange(OpenFile* file, RangeLock want, bool wait_recovery) {
  if (want.type == LockType::kUnlock) {
    if (!file->inode->locked.load()) return std::optional<RangeLock>();  // nothing was locked from here
    // What was written under the lock reaches its nodes, and its size and times its owner, before
    // the lock goes: the next holder, on any node, reads it (as NFS does at an unlock). Publishing
    // drops the file's pages and attributes from the kernels that read it. On failure the lock
    // stays (a close drops it).
    (void)WriteBehind::Wait(file->inode->behind, false);  // its error comes back at the next write or flush
    BB_RETURN_IF_ERROR(PublishSize(file->inode));
  } else {
    file->inode->locked.store(true);  // before the lock exists: a close meanwhile must unlock
    std::lock_guard lock(file->inode->mu);
    if (std::find(file->lock_owners.begin(), file->lock_owners.end(), want.owner) == file->lock_owners.end()) {
      file->lock_owners.push_back(want.owner);
    }
  }
  return AskLockNode(file, want, false, wait_recovery);
}

Status FileSystem::WaitingFor(uint64_t owner, const RangeLock& blocker, uint64_t token) {
  std::lock_guard lock(waits_mu_);
  LockOwner at = blocker.owner;
  for (size_t hops = 0; hops <= lock_waits_.size() && at.node == self_ && !at.flock; ++hops) {
    if (at.id == owner) {
      return Status(EDEADLK, "the owner of the lock this one waits for waits for this one's");
    }
    auto next = lock_waits_.find(at.id);
    if (next == lock_waits_.end()) break;
    at = next->second.blocker;
  }
  lock_waits_[owner] = {blocker.owner, token};
  return Status::Ok();
}

void FileSystem::WaitsEnd(const LockOwner& blocker) {
  std::lock_guard lock(waits_mu_);
  std::erase_if(lock_waits_, [&](const auto& w) { return w.second.blocker == blocker; });
}

void FileSystem::DoneWaiting(uint64_t owner, uint64_t token) {
  std::lock_guard lock(waits_mu_);
  auto it = lock_waits_.find(owner);
  if (it != lock_waits_.end() && it->second.token == token) lock_waits_.erase(it);
}

Status FileSystem::ReleaseLocks(OpenFile* file, uint64_t owner) { return ReleaseOwner(file, {self_, owner}); }

Status FileSystem::ReleaseOwner(OpenFile* file, const LockOwner& owner) {
  if (!file->inode->locked.load()) return Status::Ok();
  return AskLockNode(file, RangeLock{owner, LockType::kUnlock, 0, kLockToEnd, 0}, false).status();
}

Status FileSystem::ReleaseOpenLocks(OpenFile* file) {
  std::vector<LockOwner> owners;
  {
    std::lock_guard lock(file->inode->mu);
    owners.swap(file->lock_owners);
  }
  Status first;
  for (const LockOwner& owner : owners) {
    Status s = ReleaseOwner(file, owner);
    if (first.ok()) first = s;
  }
  return first;
}

}  // namespace bb::fs
