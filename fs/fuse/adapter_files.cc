// File operations: create/open, read/write, flush/fsync/release, fallocate.
#include <fcntl.h>

#include <memory>
#include <span>
#include <string>

#include "fs/fuse/adapter.h"

namespace bb::fs::adapter {

constexpr auto kMeta = qos::Class::kMetadata;
constexpr auto kData = qos::Class::kData;

namespace {
// Appends to a shared file land where its metadata owner says, not at the kernel's idea of the
// end: its page cache would hold them at the wrong offset. `flags`: the open's.
bool DirectIo(int flags, const OpenFile* file) { return (flags & O_APPEND) && !FileSystem::KeepCache(file); }
}  // namespace

void Create(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, fuse_file_info* fi_in) {
  Admit(req, kMeta, 1,
        [req, parent, name = std::string(name), mode, info = *fi_in, held = Ctx(req).calls.Of(parent)]() mutable {
          auto r = Ctx(req).fs->Create(parent, name, mode, info.flags, CallerOf(req));
          if (!r) return ReplyError(req, r.error(), "create");
          SetFileHandle(&info, r->second);
          info.keep_cache = FileSystem::KeepCache(r->second) && Ctx(req).options.private_cache_timeout > 0;
          // Every write of a file of a stream of small files goes through: its close has nothing
          // to send (no FLUSH: FOPEN_NOFLUSH).
          info.noflush = FileSystem::WritesThrough(r->second);
          if (DirectIo(info.flags, r->second)) info.direct_io = 1;
          fuse_entry_param p{};
          p.ino = r->first.ino;
          p.generation = 1;
          p.entry_timeout = CacheTimeout(req, r->first);
          p.attr_timeout = AttrTimeout(req, r->first);
          FillStat(r->first, &p.attr);
          if (fuse_reply_create(req, &p, &info) != 0) {
            // The opener is gone (interrupted): undo the open so nothing leaks.
            (void)Ctx(req).fs->Release(r->second);
          }
        });
}

void Open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi_in) {
  Admit(req, kMeta, 1, [req, ino, info = *fi_in]() mutable {
    auto f = Ctx(req).fs->Open(ino, info.flags, CallerOf(req));
    if (!f) return ReplyError(req, f.error(), "open");
    SetFileHandle(&info, *f);
    info.keep_cache = FileSystem::KeepCache(*f) && Ctx(req).options.private_cache_timeout > 0;
    if (DirectIo(info.flags, *f)) info.direct_io = 1;
    // A close of a file opened for reading has nothing to flush (no size to publish, no write
    // behind of its own): the kernel sends no FLUSH for it (FOPEN_NOFLUSH; kernels before 5.16
    // ignore the flag and send it).
    info.noflush = (info.flags & O_ACCMODE) == O_RDONLY;
    // Close-to-open: the core read the file's metadata afresh, but the kernel answers reads
    // within the size it cached at the last lookup. Dropping its attributes (not its pages:
    // keep_cache does that) makes the first read past that size, or a stat, ask again.
    if (!FileSystem::KeepCache(*f) && Ctx(req).session != nullptr) {
      (void)fuse_lowlevel_notify_inval_inode(Ctx(req).session, ino, -1, 0);
    }
    if (fuse_reply_open(req, &info) != 0) (void)Ctx(req).fs->Release(*f);
  });
}

void Read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, fuse_file_info* fi) {
  // The kernel holds the pages being read locked until the reply (KernelCallsInFlight).
  Admit(req, kData, size, [req, size, off, file = FileHandle(fi), held = Ctx(req).calls.Of(ino)] {
    // One buffer per thread, grown to the largest read seen (max_read bounds it).
    thread_local std::unique_ptr<char[]> buf;
    thread_local size_t cap = 0;
    if (cap < size) {
      buf.reset(new char[size]);
      cap = size;
    }
    auto n = Ctx(req).fs->Read(file, static_cast<uint64_t>(off), {buf.get(), size});
    if (!n) return ReplyError(req, n.error(), "read");
    fuse_reply_buf(req, buf.get(), *n);
  });
}

namespace {
// `drop_setid`: a write by a caller without CAP_FSETID (not root) on a direct I/O open, whose path
// through the kernel takes no set-ID bits away (FileSystem::DropSetIdOnWrite).
void DoWrite(fuse_req_t req, fuse_ino_t ino, OpenFile* file, off_t off, std::span<const char> data, bool drop_setid) {
  if (drop_setid) {
    auto dropped = Ctx(req).fs->DropSetIdOnWrite(file);
    if (!dropped) return ReplyError(req, dropped.error(), "write");
    // The kernel holds the inode's lock for this write: attributes only, never its pages.
    if (*dropped && Ctx(req).session != nullptr) (void)fuse_lowlevel_notify_inval_inode(Ctx(req).session, ino, -1, 0);
  }
  auto n = Ctx(req).fs->Write(file, static_cast<uint64_t>(off), data);
  if (!n) return ReplyError(req, n.error(), "write");
  fuse_reply_write(req, *n);
}
}  // namespace

void Write(fuse_req_t req, fuse_ino_t ino, const char* data, size_t size, off_t off, fuse_file_info* fi) {
  AdapterContext& c = Ctx(req);
  OpenFile* file = FileHandle(fi);
  // The kernel holds the pages being written locked until the reply (KernelCallsInFlight).
  KernelCallsInFlight::Hold held = c.calls.Of(ino);
  // The write carries its open's flags.
  const bool drop_setid = DirectIo(fi->flags, file) && fuse_req_ctx(req)->uid != 0;
  if (c.stage == nullptr) return DoWrite(req, ino, file, off, {data, size}, drop_setid);
  qos::Stage::Channel* ch = JobChannel(req, kData);
  if (c.stage->Admit(ch, size)) return DoWrite(req, ino, file, off, {data, size}, drop_setid);
  // The request buffer is libfuse's until this callback returns: a waiting write keeps a copy.
  c.stage->Wait(ch, size, [req, ino, file, off, copy = std::string(data, size), held, drop_setid] {
    DoWrite(req, ino, file, off, {copy.data(), copy.size()}, drop_setid);
  });
}

void Flush(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  Admit(req, kMeta, 1, [req, file = FileHandle(fi), owner = fi->lock_owner] {
    // A close: its process's record locks on the file go (POSIX), whichever descriptor it closed,
    // once what it wrote is published.
    Status s = Ctx(req).fs->Flush(file);
    Status unlocked = Ctx(req).fs->ReleaseLocks(file, owner);
    if (s.ok()) s = unlocked;
    if (!s.ok()) return ReplyError(req, s, "flush");
    fuse_reply_err(req, 0);
  });
}

void Release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  Status s = Ctx(req).fs->Release(FileHandle(fi));
  if (!s.ok()) return ReplyError(req, s, "release");
  fuse_reply_err(req, 0);
}

void Fsync(fuse_req_t req, fuse_ino_t, int, fuse_file_info* fi) {
  Admit(req, kMeta, 1, [req, file = FileHandle(fi)] {
    Status s = Ctx(req).fs->Fsync(file);
    if (!s.ok()) return ReplyError(req, s, "fsync");
    fuse_reply_err(req, 0);
  });
}

void Fallocate(fuse_req_t req, fuse_ino_t, int mode, off_t off, off_t len, fuse_file_info* fi) {
  Admit(req, kMeta, 1, [req, mode, off, len, file = FileHandle(fi)] {
    Status s = Ctx(req).fs->Fallocate(file, mode, static_cast<uint64_t>(off), static_cast<uint64_t>(len));
    if (!s.ok()) return ReplyError(req, s, "fallocate");
    fuse_reply_err(req, 0);
  });
}

}  // namespace bb::fs::adapter
