// Record locks (fcntl F_GETLK, F_SETLK, F_SETLKW) and flock(2) locks, for the whole cluster
// (FileSystem::SetLock, FileSystem::Flock; libfuse asks the kernel for FUSE_CAP_FLOCK_LOCKS since
// there is a flock operation). A wait is tried again off the FUSE threads (LockWaits).
#include <fcntl.h>
#include <sys/file.h>

#include <atomic>
#include <memory>

#include "fs/fuse/adapter.h"

namespace bb::fs::adapter {
namespace {

constexpr auto kMeta = qos::Class::kMetadata;

std::atomic<uint64_t> next_wait{1};  // a token per F_SETLKW wait (FileSystem::WaitingFor)

// The kernel's lock (its owner, libfuse's struct flock) as a RangeLock.
Result<RangeLock> ToRange(const fuse_file_info* fi, const struct flock* l) {
  RangeLock r;
  r.owner.id = fi->lock_owner;
  r.pid = static_cast<uint32_t>(l->l_pid);
  switch (l->l_type) {
    case F_RDLCK:
      r.type = LockType::kRead;
      break;
    case F_WRLCK:
      r.type = LockType::kWrite;
      break;
    case F_UNLCK:
      r.type = LockType::kUnlock;
      break;
    default:
      return Status(EINVAL, "lock type " + std::to_string(l->l_type));
  }
  if (l->l_start < 0 || l->l_len < 0) return Status(EINVAL, "lock range");
  r.start = static_cast<uint64_t>(l->l_start);
  r.end = l->l_len == 0 ? kLockToEnd : r.start + static_cast<uint64_t>(l->l_len) - 1;
  if (r.end < r.start || r.end > kLockToEnd) return Status(EINVAL, "lock range");
  return r;
}

}  // namespace

void GetLk(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, struct flock* lock) {
  auto want = ToRange(fi, lock);
  if (!want) return ReplyError(req, want.error(), "getlk");
  Admit(req, kMeta, 1, [req, file = FileHandle(fi), want = *want] {
    auto other = Ctx(req).fs->TestLock(file, want);
    if (!other) return ReplyError(req, other.error(), "getlk");
    struct flock out {};
    out.l_whence = SEEK_SET;
    out.l_type = F_UNLCK;
    if (*other) {
      const RangeLock& o = **other;
      out.l_type = o.type == LockType::kWrite ? F_WRLCK : F_RDLCK;
      out.l_start = static_cast<off_t>(o.start);
      out.l_len = o.end == kLockToEnd ? 0 : static_cast<off_t>(o.end - o.start + 1);
      out.l_pid = static_cast<pid_t>(o.pid);
    }
    fuse_reply_lock(req, &out);
  });
}

void SetLk(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, struct flock* lock, int sleep) {
  auto want = ToRange(fi, lock);
  if (!want) return ReplyError(req, want.error(), "setlk");
  Admit(req, kMeta, 1, [req, file = FileHandle(fi), want = *want, sleep] {
    FileSystem* fs = Ctx(req).fs;
    auto other = fs->SetLock(file, want);
    if (!other) return ReplyError(req, other.error(), "setlk");
    if (!*other || !sleep) {
      fuse_reply_err(req, *other ? EAGAIN : 0);
      return;
    }
    // F_SETLKW: tried again off this thread until set (or interrupted), unless waiting would
    // deadlock (EDEADLK). The wait is on record until it ends, however it ends (`done`).
    const uint64_t token = next_wait.fetch_add(1);
    if (Status s = fs->WaitingFor(want.owner.id, **other, token); !s.ok()) return ReplyError(req, s, "setlk");
    std::shared_ptr<void> done(nullptr, [fs, owner = want.owner.id, token](void*) { fs->DoneWaiting(owner, token); });
    Ctx(req).lock_waits.Add(req, [fs, file, want, token, done]() -> Result<bool> {
      auto blocked = fs->SetLock(file, want, /*wait_recovery=*/false);
      if (!blocked && blocked.error().code() == EINPROGRESS) return false;  // its keeper restarts
      if (blocked && *blocked) {
        Status s = fs->WaitingFor(want.owner.id, **blocked, token);
        if (s.ok()) return false;
        blocked = s;
      }
      fs->DoneWaiting(want.owner.id, token);  // before the answer: the owner may lock again at once
      if (!blocked) return blocked.error();
      return true;
    });
  });
}

void Flock(fuse_req_t req, fuse_ino_t, fuse_file_info* fi, int op) {
  LockType type = LockType::kUnlock;
  switch (op & ~LOCK_NB) {
    case LOCK_SH:
      type = LockType::kRead;
      break;
    case LOCK_EX:
      type = LockType::kWrite;
      break;
    case LOCK_UN:
      break;
    default:
      return ReplyError(req, Status(EINVAL, "flock operation " + std::to_string(op)), "flock");
  }
  const bool wait = (op & LOCK_NB) == 0 && type != LockType::kUnlock;
  Admit(req, kMeta, 1, [req, file = FileHandle(fi), owner = fi->lock_owner, type, wait] {
    FileSystem* fs = Ctx(req).fs;
    auto set = fs->Flock(file, owner, type);
    if (!set) return ReplyError(req, set.error(), "flock");
    if (*set || !wait) {
      fuse_reply_err(req, *set ? 0 : EWOULDBLOCK);
      return;
    }
    // A blocking flock: tried again off this thread until set (or interrupted).
    Ctx(req).lock_waits.Add(req, [fs, file, owner, type]() -> Result<bool> {
      auto set = fs->Flock(file, owner, type, /*wait_recovery=*/false);
      if (!set && set.error().code() == EINPROGRESS) return false;  // its keeper restarts
      return set;
    });
  });
}

}  // namespace bb::fs::adapter
