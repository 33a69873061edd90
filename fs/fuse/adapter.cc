// Operation table, session setup and the Status -> errno mapping.
#include "fs/fuse/adapter.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fs/core/coherence/coherence.h"
#include "fs/core/placement/path.h"

namespace bb::fs {
namespace adapter {

AdapterContext& Ctx(fuse_req_t req) { return *static_cast<AdapterContext*>(fuse_req_userdata(req)); }

Caller CallerOf(fuse_req_t req) {
  const fuse_ctx* c = fuse_req_ctx(req);
  return Caller{c->uid, c->gid, c->pid};
}

qos::Stage::Channel* JobChannel(fuse_req_t req, qos::Class cls) {
  const fuse_ctx* ctx = fuse_req_ctx(req);
  return Ctx(req).channels->Find(ctx->pid, ctx->uid, cls);
}

int ToErrno(const Status& s) {
  if (s.ok()) return 0;
  int code = s.code();
  return code > 0 && code < 4096 ? code : EIO;
}

void ReplyError(fuse_req_t req, const Status& s, const char* op) {
  int err = ToErrno(s);
  if (NodeStats* stats = Ctx(req).stats) stats->CountError(err);
  switch (err) {
    case ENOENT:
    case EEXIST:
    case ENOTEMPTY:
    case ENOTDIR:
    case EISDIR:
    case EINVAL:
    case ENAMETOOLONG:
    case EXDEV:
    case ENODATA:
    case EOPNOTSUPP:
    case EPERM:
    case EMLINK:
    case ERANGE:
    case E2BIG:
    case EDEADLK:
      spdlog::debug("{}: {}", op, s.ToString());
      break;
    default: {
      uint64_t held_back = 0;
      int64_t now =
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
              .count();
      if (Ctx(req).failures.Admit(std::string(op) + " " + std::to_string(err), now, &held_back)) {
        if (held_back > 0) {
          spdlog::warn("{}: {} ({} more failed so in the last 10 s)", op, s.ToString(), held_back);
        } else {
          spdlog::warn("{}: {}", op, s.ToString());
        }
      }
    }
  }
  fuse_reply_err(req, err);
}

void FillStat(const Entry& e, struct stat* st) {
  *st = {};
  const Metadata& md = e.md;
  st->st_ino = e.ino;
  st->st_mode = FileTypeBits(md.type);
  st->st_nlink = e.unlinked                        ? 0
                 : md.type == FileType::kDirectory ? 2 + md.subdirs
                 : md.link == LinkRole::kRecord    ? md.nlink
                                                   : 1;
  st->st_rdev = static_cast<dev_t>(md.rdev);
  st->st_mode |= md.mode & 07777;
  st->st_uid = md.uid;
  st->st_gid = md.gid;
  st->st_size = static_cast<off_t>(md.size);
  st->st_blksize = md.chunk_size ? md.chunk_size : 4096;
  st->st_blocks = static_cast<blkcnt_t>((md.size + 511) / 512);
  auto ts = [](int64_t ns) { return timespec{ns / 1'000'000'000, ns % 1'000'000'000}; };
  st->st_atim = ts(md.atime_ns);
  st->st_mtim = ts(md.mtime_ns);
  st->st_ctim = ts(md.ctime_ns);
}

double CacheTimeout(fuse_req_t req, const Entry& e) {
  const AdapterOptions& o = Ctx(req).options;
  if (e.told) return 0;  // may be from before a change another node made meanwhile
  if (e.node_private) return o.private_cache_timeout;
  // No longer than the owner promised to tell this node of a change.
  return e.fresh_left_ns < 0 ? o.cache_timeout : std::min(o.cache_timeout, e.fresh_left_ns / 1e9);
}

double AttrTimeout(fuse_req_t req, const Entry& e) {
  double t = CacheTimeout(req, e);
  return e.attr_left_ns < 0 || e.node_private ? t : std::min(t, e.attr_left_ns / 1e9);
}

void ReplyEntry(fuse_req_t req, const Entry& e) {
  fuse_entry_param p{};
  p.ino = e.ino;
  p.generation = 1;
  p.entry_timeout = CacheTimeout(req, e);
  p.attr_timeout = AttrTimeout(req, e);
  FillStat(e, &p.attr);
  fuse_reply_entry(req, &p);
}

void ReplyAttr(fuse_req_t req, const Entry& e) {
  struct stat st;
  FillStat(e, &st);
  fuse_reply_attr(req, &st, AttrTimeout(req, e));
}

void SetFileHandle(fuse_file_info* fi, OpenFile* f) { fi->fh = reinterpret_cast<uint64_t>(f); }
OpenFile* FileHandle(const fuse_file_info* fi) { return reinterpret_cast<OpenFile*>(fi->fh); }

namespace {

void Init(void* userdata, fuse_conn_info* conn) {
  auto* ctx = static_cast<AdapterContext*>(userdata);
  conn->max_write = ctx->options.max_write;
  conn->max_read = ctx->options.max_write;  // must match the max_read mount option
  conn->max_readahead = 1 << 20;
  // The kernel clears setuid/setgid bits itself (through setattr).
  conn->want &= ~FUSE_CAP_HANDLE_KILLPRIV;
  // Data caching across opens is decided per open file (keep_cache for node-private files);
  // within an open the page cache is used. Without auto_inval_data the kernel does not ask
  // for the attributes before every read (a GETATTR round trip, to another node in a
  // cluster), only before a read past the size it knows: another node's writes are seen at
  // the next open, or past the old end of file (close-to-open consistency, as with NFS).
  conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  if (conn->capable & FUSE_CAP_PARALLEL_DIROPS) conn->want |= FUSE_CAP_PARALLEL_DIROPS;
}

fuse_lowlevel_ops MakeOps(bool xattrs) {
  fuse_lowlevel_ops ops{};
  ops.init = Init;
  ops.lookup = Lookup;
  ops.forget = Forget;
  ops.forget_multi = ForgetMulti;
  ops.getattr = GetAttr;
  ops.setattr = SetAttr;
  ops.readlink = Readlink;
  ops.mknod = Mknod;
  ops.mkdir = Mkdir;
  ops.unlink = Unlink;
  ops.rmdir = Rmdir;
  ops.symlink = Symlink;
  ops.rename = Rename;
  ops.link = Link;
  ops.open = Open;
  ops.read = Read;
  ops.write = Write;
  ops.flush = Flush;
  ops.release = Release;
  ops.fsync = Fsync;
  ops.opendir = OpenDir;
  ops.readdir = ReadDir;
  ops.releasedir = ReleaseDir;
  ops.fsyncdir = FsyncDir;
  ops.statfs = StatFs;
  ops.create = Create;
  ops.fallocate = Fallocate;
  if (xattrs) {  // else left out: see FuseOperations
    ops.setxattr = SetXattr;
    ops.getxattr = GetXattr;
    ops.listxattr = ListXattr;
    ops.removexattr = RemoveXattr;
  }
  // Record locks and flock locks hold across the cluster (adapter_locks.cc).
  ops.getlk = GetLk;
  ops.setlk = SetLk;
  ops.flock = Flock;
  return ops;
}

}  // namespace
}  // namespace adapter

namespace {

void DropFromKernel(fuse_session* session, const FileSystem& fs, const std::vector<Invalidation>& items) {
  for (const Invalidation& item : items) {
    KernelInodes k = fs.KernelInodesOf(item.path);
    if (item.entry && k.parent != 0) {
      std::string name(BaseName(item.path));
      (void)fuse_lowlevel_notify_inval_entry(session, k.parent, name.data(), name.size());
    }
    // Attributes and pages: dropping pages waits for their locks, which a read or write of
    // this node's holds until its daemon answers (KernelHeldBy tells Coherence not to wait).
    if (k.ino != 0) (void)fuse_lowlevel_notify_inval_inode(session, k.ino, 0, 0);
  }
}

}  // namespace

bool KernelHeldBy(const KernelCallsInFlight& calls, const FileSystem& fs, const std::vector<Invalidation>& items) {
  for (const Invalidation& item : items) {
    KernelInodes k = fs.KernelInodesOf(item.path);
    if (item.entry && k.parent != 0 && calls.Holds(k.parent)) return true;  // the directory's lock
    if (k.ino != 0 && calls.Holds(k.ino)) return true;                      // its pages' locks
  }
  return false;
}

void InvalidateInKernel(fuse_session* session, const FileSystem& fs, const std::vector<Invalidation>& items) {
  if (std::find(items.begin(), items.end(), kDropEverything) == items.end()) return DropFromKernel(session, fs, items);
  // Everything this node's kernel may hold: every known name (the root has none), and its inode.
  std::vector<Invalidation> all;
  for (std::string& path : fs.KnownPaths()) {
    bool named = path != "/";
    all.push_back({std::move(path), named});
  }
  DropFromKernel(session, fs, all);
}

const fuse_lowlevel_ops& FuseOperations(bool xattrs) {
  static const fuse_lowlevel_ops ops = adapter::MakeOps(false);
  static const fuse_lowlevel_ops with_xattrs = adapter::MakeOps(true);
  return xattrs ? with_xattrs : ops;
}

}  // namespace bb::fs
