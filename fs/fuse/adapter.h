// The FUSE adapter: libfuse3's low-level operations on top of the FileSystem core.
//
// Each callback unpacks its request, makes one call into the core, and sends exactly one
// reply; ToErrno is the one place that turns a Status into the errno the application sees.
// The adapter keeps no state but the session's userdata (with the inodes its calls in flight
// hold locks of: KernelCallsInFlight).
//
// Thread-safety: callbacks run on libfuse's worker threads, concurrently.
#pragma once

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <utility>

#include "fs/base/log_limit.h"
#include "fs/core/coherence/coherence.h"
#include "fs/core/file_system.h"
#include "fs/core/observe/stats.h"
#include "fs/fuse/lock_waits.h"
#include "qos/channel_cache.h"
#include "qos/stage.h"

namespace bb::fs {

struct AdapterOptions {
  double cache_timeout = 1.0;  // seconds the kernel may cache attributes and entries
  uint32_t max_write = 1 << 20;
  // The same for node-private entries (Entry::node_private); when > 0 their pages also stay
  // cached across opens (keep_cache), since no other node can change them.
  double private_cache_timeout = 60;
};

// The session's userdata. `fs` (and `stage`, `channels` when set) must outlive the session.
// QoS admission happens here, in the adapter, before a request's one call into the core: with
// a stage, every operation but forget/release is submitted to it (qos/stage.h) on the channel
// of the calling process's job (qos/channel_cache.h) — reads and writes as data (bytes), the
// rest as metadata — and runs when the channel admits it.
struct AdapterContext {
  FileSystem* fs;
  AdapterOptions options;
  qos::Stage* stage = nullptr;
  qos::ChannelCache* channels = nullptr;  // REQUIRED with a stage
  // Set once the session exists: opens of shared files drop the kernel's cached attributes
  // (close-to-open: a size another node published since the last lookup is seen).
  fuse_session* session = nullptr;
  NodeStats* stats = nullptr;   // counts error replies by errno when set
  KernelCallsInFlight calls{};  // this node's calls that hold a lock in the kernel
  LockWaits lock_waits{};       // F_SETLKW requests blocked by another owner's lock
  // Failed calls logged at warning level: one line per operation and errno per 10 s (a job that
  // keeps failing fails every call the same way), with the count of the rest.
  SharedLogLimiter failures{10'000'000'000};
};

// The operation table to pass to fuse_session_new with an AdapterContext as userdata.
// `xattrs`: with the extended attribute operations. Without them the kernel learns once (ENOSYS)
// that there are none and answers EOPNOTSUPP itself, where a reply would be asked for, for
// security.capability, before every write.
const fuse_lowlevel_ops& FuseOperations(bool xattrs = false);

// Drops what `session`'s kernel holds of each item's path (fs/core/coherence/coherence.h): its name from
// its parent directory for an entry, the attributes and pages of the inode at the path. Paths
// the kernel was never given are skipped. Returns once the kernel did it.
void InvalidateInKernel(fuse_session* session, const FileSystem& fs, const std::vector<Invalidation>& items);

// Whether dropping `items` from the kernel would wait for a call of this node's own in flight
// (KernelHooks::held): a name to drop from a directory `calls` holds, or an inode they hold.
bool KernelHeldBy(const KernelCallsInFlight& calls, const FileSystem& fs, const std::vector<Invalidation>& items);

// Internal helpers shared by the adapter's translation units.
namespace adapter {
AdapterContext& Ctx(fuse_req_t req);
Caller CallerOf(fuse_req_t req);
int ToErrno(const Status& s);
void ReplyError(fuse_req_t req, const Status& s, const char* op);
void FillStat(const Entry& e, struct stat* st);
void ReplyEntry(fuse_req_t req, const Entry& e);
// How long the kernel may cache an entry's name, and its attributes (a directory's: shorter).
double CacheTimeout(fuse_req_t req, const Entry& e);
double AttrTimeout(fuse_req_t req, const Entry& e);
void ReplyAttr(fuse_req_t req, const Entry& e);
void SetFileHandle(fuse_file_info* fi, OpenFile* f);
// The QoS channel of the request's job for class `cls`. REQUIRES: a stage.
qos::Stage::Channel* JobChannel(fuse_req_t req, qos::Class cls);
// Runs `body` now, or once the QoS stage admits the request — then on a stage thread, so
// `body` must hold copies of everything it uses except `req`.
template <class F>
void Admit(fuse_req_t req, qos::Class cls, uint64_t units, F&& body) {
  AdapterContext& c = Ctx(req);
  if (c.stage == nullptr) {
    body();
    return;
  }
  c.stage->Submit(JobChannel(req, cls), units, std::forward<F>(body));
}
OpenFile* FileHandle(const fuse_file_info* fi);

void Lookup(fuse_req_t, fuse_ino_t, const char*);
void Forget(fuse_req_t, fuse_ino_t, uint64_t);
void ForgetMulti(fuse_req_t, size_t, fuse_forget_data*);
void GetAttr(fuse_req_t, fuse_ino_t, fuse_file_info*);
void SetAttr(fuse_req_t, fuse_ino_t, struct stat*, int, fuse_file_info*);
void Readlink(fuse_req_t, fuse_ino_t);
void Mknod(fuse_req_t, fuse_ino_t, const char*, mode_t, dev_t);
void Mkdir(fuse_req_t, fuse_ino_t, const char*, mode_t);
void Unlink(fuse_req_t, fuse_ino_t, const char*);
void Rmdir(fuse_req_t, fuse_ino_t, const char*);
void Symlink(fuse_req_t, const char*, fuse_ino_t, const char*);
void Rename(fuse_req_t, fuse_ino_t, const char*, fuse_ino_t, const char*, unsigned int);
void Link(fuse_req_t, fuse_ino_t, fuse_ino_t, const char*);
void StatFs(fuse_req_t, fuse_ino_t);

void Create(fuse_req_t, fuse_ino_t, const char*, mode_t, fuse_file_info*);
void Open(fuse_req_t, fuse_ino_t, fuse_file_info*);
void Read(fuse_req_t, fuse_ino_t, size_t, off_t, fuse_file_info*);
void Write(fuse_req_t, fuse_ino_t, const char*, size_t, off_t, fuse_file_info*);
void Flush(fuse_req_t, fuse_ino_t, fuse_file_info*);
void Release(fuse_req_t, fuse_ino_t, fuse_file_info*);
void Fsync(fuse_req_t, fuse_ino_t, int, fuse_file_info*);
void Fallocate(fuse_req_t, fuse_ino_t, int, off_t, off_t, fuse_file_info*);

void SetXattr(fuse_req_t, fuse_ino_t, const char*, const char*, size_t, int);
void GetXattr(fuse_req_t, fuse_ino_t, const char*, size_t);
void ListXattr(fuse_req_t, fuse_ino_t, size_t);
void RemoveXattr(fuse_req_t, fuse_ino_t, const char*);

void GetLk(fuse_req_t, fuse_ino_t, fuse_file_info*, struct flock*);
void SetLk(fuse_req_t, fuse_ino_t, fuse_file_info*, struct flock*, int);
void Flock(fuse_req_t, fuse_ino_t, fuse_file_info*, int);

void OpenDir(fuse_req_t, fuse_ino_t, fuse_file_info*);
void ReadDir(fuse_req_t, fuse_ino_t, size_t, off_t, fuse_file_info*);
void ReleaseDir(fuse_req_t, fuse_ino_t, fuse_file_info*);
void FsyncDir(fuse_req_t, fuse_ino_t, int, fuse_file_info*);
}  // namespace adapter

}  // namespace bb::fs
