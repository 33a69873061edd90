// POSIX record locks (fcntl F_SETLK, F_SETLKW, F_GETLK) of one file, as the kernel keeps them for
// a local file system, for the node that holds the file's locks for the whole cluster
// (FileSystem::SetLock; NodeService::Lock).
//
// An owner is a node and the kernel's lock owner there (one per process's table of open files,
// or per open file description for OFD locks and flock(2) locks). Two locks conflict when their
// owners differ but are of one kind (record or flock), their ranges overlap and at least one of
// them is a write lock. An owner's own locks never conflict:
// a lock over a range it holds replaces what it held there (a read lock turns into a write lock
// and back), and an unlock of part of a range splits it. An owner's locks of one type that
// overlap or touch are kept as one.
//
// Thread-safety: none (the holder guards each table).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fs/base/status.h"

namespace bb::fs {

// The end of a range that runs to the end of the file, however far it grows (the kernel's
// OFFSET_MAX).
inline constexpr uint64_t kLockToEnd = INT64_MAX;

enum class LockType : uint8_t { kRead = 0, kWrite = 1, kUnlock = 2 };

// The file id of no file: an unlock of it drops every lock of the owner's node, of every file
// (LockTables::Lock; a node does so at every node when its daemon starts).
inline constexpr uint64_t kAllFiles = 0;

struct LockOwner {
  uint32_t node = 0;
  uint64_t id = 0;  // the kernel's lock owner on that node
  // A flock(2) lock's owner (an open file description), whose locks are whole-file read (LOCK_SH)
  // or write (LOCK_EX) locks: they conflict only with other owners' flock locks, never with
  // record locks (as on Linux, where the two kinds never meet).
  bool flock = false;
  bool operator==(const LockOwner&) const = default;
};

struct RangeLock {
  LockOwner owner;
  LockType type = LockType::kRead;
  uint64_t start = 0;
  uint64_t end = kLockToEnd;  // inclusive
  uint32_t pid = 0;           // of the process that set it, on the owner's node
  bool operator==(const RangeLock&) const = default;
};

class RangeLocks {
 public:
  // The first lock of another owner that `want` (a read or write lock) conflicts with; nullopt
  // when there is none (F_GETLK).
  std::optional<RangeLock> Conflict(const RangeLock& want) const;
  // Sets `want` (a read or write lock, or an unlock of its range) unless another owner's lock
  // conflicts with it: then returns that lock and changes nothing (F_SETLK's EAGAIN), but for a
  // flock owner, whose lock (converted) is gone then, as on Linux.
  std::optional<RangeLock> Set(const RangeLock& want);
  // Sets `want` over the other owners' locks it conflicts with, which go (a holder's record of
  // what its keeper granted: the keeper holds none of them any more, whatever order the
  // answers to this node's owners came back in).
  void Force(const RangeLock& want);
  // Drops every lock of `owner` (its process closed the file); of every owner on `node` when
  // `node_wide`.
  void Release(const LockOwner& owner, bool node_wide = false);

  bool empty() const { return locks_.empty(); }
  // Every lock, in no particular order.
  const std::vector<RangeLock>& locks() const { return locks_; }

 private:
  std::vector<RangeLock> locks_;
};

// The locks a node holds for the cluster, one RangeLocks per file (NodeService::Lock), in memory,
// at most kMaxPerFile locks of a file and kMaxFiles files with locks (ENOLCK past them, as a
// kernel out of lock memory answers). Thread-safe.
//
// Held in memory, they go with the daemon. The daemon that starts again takes them back from
// their holders (RecoverLocks, lock_recovery.h) while its tables recover: then every request but
// an unlock of kAllFiles is answered EINPROGRESS, and its asker tries again.
class LockTables {
 public:
  static constexpr size_t kMaxPerFile = 4096;
  static constexpr size_t kMaxFiles = 1 << 18;

  explicit LockTables(bool recovering = false) : recovering_(recovering) {}

  // `test`: the lock `want` conflicts with (F_GETLK); else RangeLocks::Set. An unlock of
  // kAllFiles: ReleaseNode(want.owner.node).
  Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test);
  // Drops every lock of every owner on `node`, of every file.
  void ReleaseNode(uint32_t node);
  size_t files() const;

  void BeginRecovery();
  // Sets a lock its holder held before this node's daemon started again, while recovering. A lock
  // that conflicts with one taken back already is refused (EDEADLK), and so is any lock of a
  // file past kMaxFiles (ENOLCK); kMaxPerFile does not apply (a keeper may have granted a few
  // more: a lock inside an owner's own lock splits it).
  Status TakeBack(uint64_t file_id, const RangeLock& lock);
  void EndRecovery();
  bool recovering() const;

 private:
  Result<std::optional<RangeLock>> SetLocked(uint64_t file_id, const RangeLock& want, bool test, bool bounded = true);

  mutable std::mutex mu_;
  bool recovering_;                                 // guarded by mu_
  std::unordered_map<uint64_t, RangeLocks> files_;  // guarded by mu_; no empty tables
};

// A lock some node's process holds, of file `file_id` (NodeService::HeldLocks).
struct HeldLock {
  uint64_t file_id = 0;
  RangeLock lock;
  bool operator==(const HeldLock&) const = default;
};

struct HeldLockPage {
  std::vector<HeldLock> locks;
  bool more = false;  // locks of later files follow
};

// The locks this node's processes hold of files whose locks other nodes keep, as those nodes
// answered: what a keeper whose daemon starts again takes back from here (NodeService::HeldLocks).
// Thread-safe.
class HeldLocks {
 public:
  // After `keeper` answered a set of `want`; `refused`: another owner's lock conflicted, and
  // nothing was set (but a flock owner's old lock, which conversion dropped: RangeLocks::Set).
  // An unlock is noted whether its keeper answered or not: its process has let go.
  void Note(uint32_t keeper, uint64_t file_id, const RangeLock& want, bool refused);
  // Those `keeper` keeps, of files after `after` in file id order: all of a file's locks, files
  // until `limit` locks or more are in, `more` when files follow.
  HeldLockPage KeptBy(uint32_t keeper, uint64_t after, size_t limit) const;

 private:
  struct File {
    uint32_t keeper = 0;
    RangeLocks locks;
  };
  mutable std::mutex mu_;
  std::map<uint64_t, File> files_;  // guarded by mu_; no empty ones
};

}  // namespace bb::fs
