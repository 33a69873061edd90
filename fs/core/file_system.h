// FileSystem: the namespace and file operations of the burst buffer, without FUSE.
//
// Operations take and return inode numbers as the kernel sees them. The inode number of an
// entry is its stable file id (the root is 1), so it survives renames and daemon restarts. The
// core keeps a table inode -> path for the inodes the kernel knows (lookup counts, as FUSE
// defines them) and the state of open files. Every placement decision goes through the Router;
// every store access goes through the NodeService of the node the Router names.
//
// File sizes: a write grows the open file's in-memory size; the size (and mtime) reach the
// metadata owner coalesced — on flush/close, fsync, and at most every publish_interval — never
// as one update per write. The first write since the size was published, when its chunk lies on
// the owner (where the mode keeps a file's first chunk with its entry, layout.h), carries the
// size in its own request (NodeService::WriteChunkAndUpdate), and the close then has nothing to
// send. A read that reaches past the known size asks the owner again, so it
// sees data another writer has published.
//
// Streams of small files (create_streams.h): from a process's second file in a directory on, a
// lookup of a new name has its owner reserve the name, the create is made here
// (deferred_creates.h, the owner asking for it back before anyone else reads, makes or lists it:
// name_reservations.h), and the file's writes go through (WritesThrough), its size published
// with each, so that its close has nothing to send.
//
// Data: the chunks of one read or write move at the same time (FanOut). With write-behind
// (FileSystemOptions::write_behind_bytes) a write returns once its chunks for this node are
// stored and those for other nodes are copied and on their way; flush (close), fsync, reads,
// truncates and release on this node wait for them, and their first error comes back from the
// next flush, fsync or write — as with NFS or Lustre clients, not POSIX's write(2). A size is
// published only when none are on their way, so a reader elsewhere never sees a size whose
// bytes have not arrived; during a long stream of writes behind the size waits for the close.
//
// The root directory's entry is kept on every node (created on all at Init, changed on all by
// SetAttr, read locally), so that path walks, which the kernel checks against the root's
// attributes, keep working while some node is down. So is the root of every workspace
// (fs/core/placement/workspace.h): CreateWorkspace puts it on every node, RemoveWorkspace removes the
// workspace's entries and data from every node; a file operation never removes or renames it
// (EBUSY), and a rename never moves an entry between workspaces (EXDEV).
//
// Hard links (file_links.cc): any non-directory may get more names in its own workspace (EXDEV
// across workspaces), in every mode; st_nlink counts them.
//
// Deviations from POSIX, on purpose: a non-empty directory cannot be renamed (EXDEV; `mv` then
// copies); FIFOs, sockets and device nodes exist in the namespace, their data is the kernel's (a
// FIFO works between processes of one node); a directory's mtime, ctime and subdirectory count
// reach its owner coalesced (dir_changes.h); atime is set at create and by utimens only (as with
// noatime); st_blocks is the size rounded up to 512-byte blocks.
//
// Thread-safety: all methods may be called concurrently from FUSE worker threads. Lock order:
// table_mu_ before any Inode::mu; neither is held across a NodeService call.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>

#include "fs/base/clock.h"
#include "fs/base/status.h"
#include "fs/core/coherence/dir_changes.h"
#include "fs/core/coherence/statahead.h"
#include "fs/core/creates/create_streams.h"
#include "fs/core/creates/deferred_creates.h"
#include "fs/core/creates/dir_leases.h"
#include "fs/core/data/chunk_removals.h"
#include "fs/core/observe/profile.h"
#include "fs/core/observe/stats.h"
#include "fs/core/placement/chunking.h"
#include "fs/core/placement/file_id_allocator.h"
#include "fs/core/placement/router.h"
#include "fs/core/placement/workspace.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

// The most names one file may have (EMLINK past it), as ext4's.
inline constexpr uint32_t kLinkMax = 65000;
// Removed files whose chunks wait to be freed behind their unlink (chunk_removals.h), at most.
inline constexpr size_t kMaxChunkRemovals = 65536;
// Reserved names and entries made on them waiting here (deferred_creates.h), at most.
inline constexpr size_t kMaxDeferredCreates = 65536;

struct FileSystemOptions {
  uint32_t chunk_size = kDefaultChunkSize;
  int64_t publish_interval_ns = 1'000'000'000;  // bound on how stale a published size gets
  uint32_t dir_page = 4096;                     // entries per readdir page per node
  // Helper threads that move the chunks of one read or write at the same time (FanOut);
  // 0 = one chunk after another on the calling thread.
  uint32_t io_threads = 16;
  // Write-behind: a write's chunks for other nodes are copied and sent on helper threads while
  // write() returns; at most this many bytes are on their way at once (writers wait for
  // room). flush (close) and fsync wait for them and report their first error, as does the
  // next write. 0 = every write waits for its chunks. Files opened O_SYNC, O_DSYNC or
  // O_DIRECT always wait.
  uint64_t write_behind_bytes = 64 << 20;
  // Fault in the write-behind buffers (write_behind_bytes of chunk_size buffers) at start
  // instead of at the first writes (a freshly mapped buffer pays a page fault per page:
  // bb-page-fault-bench). The daemon sets it when it has peers.
  bool prefault_write_behind = false;
  // How long a directory's entry changes (mtime, ctime, subdirectory count) wait here to be
  // sent to its owner together (fs/core/coherence/dir_changes.h); 0: only when this node reads the
  // directory's attributes, and at stop.
  uint32_t dir_change_ms = 20;
  // How long the removal of a removed small file's chunk on another node waits here to go with
  // others to that node (fs/core/data/chunk_removals.h); 0: only at statfs and at stop.
  uint32_t chunk_removal_ms = 5;
  // Streams of small files (fs/core/creates/create_streams.h): their names reserved at lookup and their
  // entries made here (fs/core/creates/deferred_creates.h), their writes through and their close sending
  // nothing. Reservations need the owners' callbacks (attr_cache_ns > 0).
  bool small_file_streams = true;
  // Leases of the directories streams make files in (fs/core/creates/dir_leases.h): their lookups of new
  // names answered here.
  bool dir_leases = true;
  // How long entries made here on reserved names wait to go to their owners together (those
  // not sent with their file's first write); 0: only at fsync, when asked for, and at stop.
  uint32_t deferred_create_ms = 20;
  // Where those removals are kept until their node confirmed them (this node's MetaStore;
  // must outlive the file system): none is lost to a killed daemon or a node that was down.
  // Null: kept in memory only.
  MetaStore* chunk_removal_journal = nullptr;
  // How long an entry's attributes read from its owner may answer getattr and open here
  // without asking again, unless the owner tells this node it changed (fs/core/coherence/coherence.h:
  // set only where the owners tell, and to no more than their callback hold). 0: always ask.
  int64_t attr_cache_ns = 0;
  // The same, for directories, at most: their times and link count move with entries other
  // nodes make or remove in them, which are not told (DirChanges). The kernel caches their
  // attributes no longer either (their names as long as any other's).
  int64_t dir_attr_cache_ns = 1'000'000'000;
  // Statahead (fs/core/coherence/statahead.h): the entries of a directory whose entries are looked up one
  // after another are read ahead, at most this many per read-ahead (over all nodes), and answer
  // for attr_cache_ns; 0 (or attr_cache_ns 0): every lookup asks the entry's owner.
  uint32_t statahead_window = 8192;
};

// Who is asking (from the FUSE request).
struct Caller {
  uint32_t uid = 0;
  uint32_t gid = 0;
  pid_t pid = 0;
};

struct Entry {
  uint64_t ino = 0;
  Metadata md;
  bool node_private = false;  // only this node sees it: the kernel may cache it (Router::NodePrivate)
  bool unlinked = false;      // removed while open here: no name links to it (st_nlink 0)
  // Its owner told this node of a change while this was read: the kernel must not cache it
  // (it may be the state from before the change).
  bool told = false;
  // What is left of its owner's promise to tell this node of a change (the kernel may cache it no
  // longer); negative: the whole cache timeout.
  int64_t fresh_left_ns = -1;
  // How long its attributes may be cached, when shorter (a directory's); negative: as above.
  int64_t attr_left_ns = -1;
};

// The inodes a kernel may know for one path: the path's own and its parent directory's (0 when
// this node's kernel was never given them).
struct KernelInodes {
  uint64_t parent = 0;
  uint64_t ino = 0;
};

struct SetAttrRequest {
  std::optional<uint32_t> mode;
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  std::optional<uint64_t> size;
  std::optional<int64_t> atime_ns;  // wall-clock ns
  std::optional<int64_t> mtime_ns;
};

struct DirListing {
  std::string name;
  uint64_t ino;
  FileType type;
};

struct Inode;
struct OpenFile;
struct DirHandle;
class FanOut;
class IntervalFlusher;
class WriteBehind;
struct SizeAlong;

// `nodes` (NodeResolver, node_service.h) must return non-null for every node the router names.
class FileSystem {
 public:
  // `router`, `ids`, `clock` and `stats` (may be null) must outlive this; `nodes` must stay
  // callable.
  FileSystem(FileSystemOptions options, const Router* router, NodeResolver nodes, FileIdAllocator* ids,
             const Clock* clock, NodeStats* stats = nullptr);
  ~FileSystem();
  FileSystem(const FileSystem&) = delete;
  FileSystem& operator=(const FileSystem&) = delete;

  // Every method returns the errno of its failure as the Status code. Besides those listed,
  // any method that reaches another node may fail with EIO (the node is down or the link
  // broke), ETIMEDOUT (no answer by the deadline) or EHOSTUNREACH (no address for the node),
  // and any that writes metadata with ENOSPC (the store is full). ESTALE: an inode number the
  // kernel no longer holds a reference to.

  // Creates the root directory on every node where it is absent (owned by `owner`).
  Status Init(const Caller& owner);

  // Each successful Lookup/Create/Mkdir/Symlink/Mknod adds one kernel reference to the inode;
  // Forget drops `n` of them.
  // Lookup: the entry `name` of directory `parent`. ENOENT when absent (or `parent` was
  // removed); EINVAL for a name that cannot be one ("", ".", "..", with '/'); ENAMETOOLONG.
  // `pid`, the process looking, when known: a stream of small files has absent names reserved
  // (CreateStreams).
  Result<Entry> Lookup(uint64_t parent, const std::string& name, pid_t pid = 0);
  void Forget(uint64_t ino, uint64_t n);
  // The entry with the size and times this node's own unpublished writes give it. ENOENT when
  // it was removed elsewhere.
  Result<Entry> GetAttr(uint64_t ino);
  // Changes mode, owner, size (truncate, waiting for writes behind first) and times; returns
  // the entry after. EISDIR for a size on a directory, EINVAL on a symlink. `file` is the open
  // file the request came through, or null.
  Result<Entry> SetAttr(uint64_t ino, const SetAttrRequest& req, OpenFile* file);
  // A write through `file` by a caller without CAP_FSETID, on a path where the kernel leaves it to
  // the file system (direct I/O: O_APPEND opens): takes set-user-ID away, and set-group-ID when
  // group execute is set, as the kernel does on its own path. True when the mode changed.
  Result<bool> DropSetIdOnWrite(OpenFile* file);

  // Extended attributes, kept in the file's entry and changed at its owner (fs/core/ops/xattrs.cc):
  // `user.*`, `trusted.*` and `security.*` for whoever the kernel lets through (it checks the
  // permissions and capabilities each needs), others EOPNOTSUPP. SetXattr: `flags` XATTR_CREATE
  // (EEXIST when it is there) or XATTR_REPLACE (ENODATA when it is not); E2BIG past 64 KiB,
  // ENOSPC past 128 KiB for the file.
  // GetXattr/RemoveXattr: ENODATA when absent. ListXattr: the names, each ended by a NUL.
  Status SetXattr(uint64_t ino, const std::string& name, std::string_view value, int flags);
  Result<std::string> GetXattr(uint64_t ino, const std::string& name);
  Result<std::string> ListXattr(uint64_t ino);
  Status RemoveXattr(uint64_t ino, const std::string& name);

  // Mknod makes regular files, FIFOs, sockets and (for root only: EPERM otherwise) device nodes
  // with `rdev`; EINVAL for other types. The three: EEXIST when the name
  // exists; ENOENT when `parent` was removed; EINVAL/ENAMETOOLONG for the name; Symlink also
  // ENOENT for an empty target and ENAMETOOLONG for one of kPosixPathMax bytes or more.
  Result<Entry> Mknod(uint64_t parent, const std::string& name, mode_t mode, dev_t rdev, const Caller& c);
  Result<Entry> Mkdir(uint64_t parent, const std::string& name, mode_t mode, const Caller& c);
  // Sends the directory changes this node still holds (dir_changes.h) to their owners now.
  void SendDirChanges() { dir_changes_->FlushAll(); }
  // Sends the entries made here on reserved names (deferred_creates.h) to their owners now, and
  // gives up the reservations unused for deferred_create_ms; returns the first error.
  Status SendDeferredCreates() { return deferred_->Flush(); }
  Result<Entry> Symlink(uint64_t parent, const std::string& name, const std::string& target, const Caller& c);
  // The target of a symlink; EINVAL for any other type.
  Result<std::string> Readlink(uint64_t ino);
  // Another name `new_name` in `new_parent` for the file `ino`; returns it with one more kernel
  // reference. EPERM for a directory; EEXIST when the name exists; EXDEV to another workspace;
  // EMLINK past kLinkMax names; ENOENT when the file was removed.
  Result<Entry> Link(uint64_t ino, uint64_t new_parent, const std::string& new_name);
  // Removes one name. ENOENT when absent; EISDIR for a directory (or a workspace's root). The
  // data of a file whose last name goes stays until its last Release.
  Status Unlink(uint64_t parent, const std::string& name);
  // ENOENT when absent; ENOTDIR for a non-directory; ENOTEMPTY; EBUSY for a workspace's root.
  Status Rmdir(uint64_t parent, const std::string& name);
  // `flags`: 0 or RENAME_NOREPLACE (EEXIST when the target exists); RENAME_EXCHANGE gives
  // EINVAL. ENOENT when the source is absent; EINVAL for a directory moved into itself; EBUSY
  // for a workspace's root; EXDEV between workspaces and for a non-empty directory; ENOTDIR /
  // EISDIR when a directory and a non-directory would replace each other; ENOTEMPTY for a
  // non-empty target directory.
  Status Rename(uint64_t parent, const std::string& name, uint64_t new_parent, const std::string& new_name,
                unsigned int flags);

  // Create and open (O_CREAT, with O_EXCL/O_TRUNC/O_APPEND honoured). The caller owns the
  // OpenFile until Release. EEXIST with O_EXCL when the name exists; EISDIR when it is a
  // directory; as Mknod otherwise.
  Result<std::pair<Entry, OpenFile*>> Create(uint64_t parent, const std::string& name, mode_t mode, int flags,
                                             const Caller& c);
  // EISDIR for a directory; ENOENT when the entry was removed elsewhere. O_TRUNC truncates.
  Result<OpenFile*> Open(uint64_t ino, int flags, const Caller& c);
  // Fills `buf` from `offset`; returns the bytes read (short at end of file; holes are zeros).
  Result<size_t> Read(OpenFile* file, uint64_t offset, std::span<char> buf);
  // Writes `data` at `offset` (at the end of file for O_APPEND); returns the bytes written.
  // ENOSPC when a store is full. An error of an earlier write behind is returned here first.
  Result<size_t> Write(OpenFile* file, uint64_t offset, std::span<const char> data);
  // FALLOC mode 0 or FALLOC_FL_KEEP_SIZE reserve the range's chunks (ENOSPC); PUNCH_HOLE
  // (with KEEP_SIZE) frees them where the nodes' backing stores can, ZERO_RANGE zeroes and
  // reserves them; both change the modification time. EOPNOTSUPP for other modes.
  Status Fallocate(OpenFile* file, int mode, uint64_t offset, uint64_t length);
  // Wait for the file's writes behind and publish its size: the first error of a write
  // behind comes back here. Fsync also makes the file's chunks and metadata durable on every
  // node that holds them.
  Status Flush(OpenFile* file);
  Status Fsync(OpenFile* file);

  // Record locks (fcntl F_GETLK, F_SETLK; range_locks.h), for the whole cluster: each file's are
  // held by one node (LockNode), in memory. `want.owner.id` is the kernel's lock owner; the node
  // is this one. TestLock: the lock `want` conflicts with (its pid 0 when it is held on another
  // node). SetLock: sets `want` (or unlocks its range) unless another owner's lock conflicts,
  // which then comes back (the caller's EAGAIN, or a wait for F_SETLKW); nothing changed. An
  // unlock first waits for the file's writes behind and publishes its size (as Flush): what was
  // written under a lock is read by whoever takes it next, on any node.
  // ReleaseLocks: drops every lock `owner` holds on the file (its process closed a descriptor of
  // it, as POSIX asks); no request when no lock of the file was ever set on this node.
  Result<std::optional<RangeLock>> TestLock(OpenFile* file, RangeLock want);
  // `wait_recovery` false: a keeper that takes back its locks after a restart answers
  // EINPROGRESS at once (to a caller that tries again anyway) instead of being waited for.
  Result<std::optional<RangeLock>> SetLock(OpenFile* file, RangeLock want, bool wait_recovery = true);
  Status ReleaseLocks(OpenFile* file, uint64_t owner);
  // flock(2) of `file` by the kernel's `owner` (its open file description): a whole-file read
  // (LOCK_SH) or write (LOCK_EX) lock, or the unlock, for the whole cluster as record locks are
  // (and never in conflict with them). False: another owner holds a conflicting one (nothing
  // changed; EWOULDBLOCK, or wait and try again). An unlock publishes as SetLock's does.
  Result<bool> Flock(OpenFile* file, uint64_t owner, LockType type, bool wait_recovery = true);
  // At the release of `file`: the locks of every owner that set one through it go (its OFD and
  // flock locks, which the kernel sends no unlock of).
  Status ReleaseOpenLocks(OpenFile* file);
  // The node that holds the locks of the file: this one for a node-private file, else one by
  // its file id (every node finds the same one, whatever its layout and wherever its entry).
  NodeId LockNode(const OpenFile* file) const;
  // Deadlock detection for F_SETLKW, as Linux does it for record locks, among this node's lock
  // owners: before `owner` waits for `blocker` (the lock SetLock answered), EDEADLK when the
  // blocker's owner waits, through this node's waits, for `owner`; else `owner` is recorded as
  // waiting for it (as wait `token`, unique to the wait, again at every retry) until
  // DoneWaiting. A cycle through another node's owners is not found: its waits stay until a
  // signal (EINTR) or a holder's close ends one.
  Status WaitingFor(uint64_t owner, const RangeLock& blocker, uint64_t token);
  void DoneWaiting(uint64_t owner, uint64_t token);
  // The locks this node's processes hold that `keeper` keeps, which it takes back when its daemon
  // starts again (NodeService::HeldLocks; RecoverLocks).
  HeldLockPage HeldLocksKeptBy(NodeId keeper, uint64_t after, uint32_t limit) const {
    return held_locks_.KeptBy(keeper, after, limit);
  }
  // Publishes what is pending and frees `file` (also on failure). The last close of an
  // unlinked file frees its data.
  Status Release(OpenFile* file);

  // ENOTDIR for a non-directory; ENOENT when it was removed.
  Result<DirHandle*> OpenDir(uint64_t ino);
  // Entry number `index` of the listing ("." is 0, ".." is 1), or nullopt past the end.
  // The returned listing stays valid until the next call on the same handle.
  Result<std::optional<DirListing>> DirEntryAt(DirHandle* dir, uint64_t index);
  void ReleaseDir(DirHandle* dir);

  // The space of every node, summed (in the first node's block size).
  Result<SpaceStats> StatFs();

  // Creates workspace `name` with layout `spec` on every node, its root owned by `owner`;
  // undone on every node when one of them fails. EEXIST when /name exists; EINVAL for a name
  // ValidateWorkspaceName refuses.
  Status CreateWorkspace(const std::string& name, const WorkspaceSpec& spec, const Caller& owner);
  // Removes every entry and all data of workspace `name` on every node, then the workspace.
  // Safe to repeat after a failure. ENOENT when there is no such workspace; EPERM when `who` is
  // neither root nor the owner of the workspace's root.
  Status RemoveWorkspace(const std::string& name, const WorkspaceRouter& workspaces, const Caller& who);

  // The I/O profile of workspaces (fs/core/observe/profile.h): Start counting what this node's
  // processes do in one, and Stop (returning what was counted).
  Profiles& profiles() { return profiles_; }

  // True when the kernel may keep `file`'s pages cached across opens (node-private data).
  static bool KeepCache(const OpenFile* file);
  // True when every write of `file` is stored and published before it returns, so its close has
  // nothing to send (the kernel then sends no FLUSH): a file of a stream of small files.
  static bool WritesThrough(const OpenFile* file);

  // The owner of names reserved for this node asks for them back (NodeService::HandOver).
  std::vector<MadeEntry> HandOver(const std::vector<std::string>& paths, NodeId owner) {
    return deferred_->HandOver(paths, owner);
  }
  // The owner of a directory's names asks for its lease back (NodeService::HandOverDir).
  std::vector<MadeEntry> HandOverDir(const std::string& dir, NodeId owner);
  // `owner` started again (Coherence::OwnerReset): the leases and reservations it gave are gone
  // there, so they go here too (what was made on them is sent as usual).
  void OwnerReset(NodeId owner);
  DirLeases::Counters LeaseCounters() const { return leases_.counters(); }
  DeferredCreates::Counters DeferredCounters() const { return deferred_->counters(); }
  size_t DeferredWaiting() const { return deferred_->waiting(); }

  // The inodes this node's kernel may hold for `path` (cache invalidation, coherence.h).
  KernelInodes KernelInodesOf(const std::string& path) const;
  // Every path whose inode this node's kernel may hold (kDropEverything, coherence.h).
  std::vector<std::string> KnownPaths() const;
  // The owner of each item's path told this node it changed: attributes cached here are read
  // again (call before the kernel is told, so that what it asks next is fresh), and an inode
  // known by a name that went on naming its file elsewhere (Invalidation::file_id) follows it.
  void Invalidated(const std::vector<Invalidation>& items);
  // How this node's own kernel is told to drop names it holds (Coherence::ToKernel: after the
  // call that tells it was answered, when that call holds the kernel's locks): after a change
  // that failed halfway, which the kernel does not apply. Set before the first request; unset:
  // nothing is told (no kernel).
  void SetOwnKernel(std::function<void(const std::vector<Invalidation>&)> tell) { own_kernel_ = std::move(tell); }
  // Files open here keep the callbacks of their names at their owners, however long they stay
  // open (a registration lapses after its hold): each whose attributes are within half the
  // timeout of going stale is read again, so that a rename or removal elsewhere is told here.
  // Runs every half timeout on a thread of its own; public for tests.
  void RenewOpenCallbacks();

  // Number of inodes the kernel holds references to (for tests and statistics).
  size_t KnownInodes() const;
  // What statahead did (read-aheads, entries they brought, lookups they answered).
  Statahead::Counters StataheadCounters() const { return statahead_.counters(); }
  ChunkRemovals::Counters ChunkRemovalCounters() const { return removals_->counters(); }
  size_t ChunkRemovalsRetrying() const { return removals_->retrying(); }

 private:
  Result<std::shared_ptr<Inode>> FindInode(uint64_t ino) const;
  // REQUIRES table_mu_: sets the inode's path, keeping by_path_ in step.
  void SetPathLocked(Inode& inode, const std::string& path);
  // The inode of file `file_id`, when this node knows it by `from`, takes `to` (the file went on
  // under that name or its link record). Call with table_mu_ held.
  void FollowLocked(uint64_t file_id, const std::string& from, const std::string& to);
  void ErasePathLocked(const Inode& inode);
  // The inode last known at `path`, or null.
  std::shared_ptr<Inode> InodeAt(const std::string& path) const;
  // Where an inode is now: its path, and whether its last name went while it is open.
  struct Named {
    std::string path;
    bool unlinked = false;
  };
  Named NameOf(const Inode& inode) const;
  Result<std::string> PathOf(uint64_t ino) const;
  Result<std::string> ChildPath(uint64_t parent, const std::string& name) const;
  Entry Remember(const std::string& path, const Metadata& md);
  // `unlinked`, when given, says whether the inode was removed while open here; `path_out`,
  // its path (both read under the one lock it takes).
  Result<Metadata> FreshMeta(const std::shared_ptr<Inode>& inode, bool* unlinked_out = nullptr,
                             std::string* path_out = nullptr);
  // FreshMeta, or the attributes it read within attr_cache_ns when nothing was told since.
  Result<Metadata> CachedMeta(const std::shared_ptr<Inode>& inode, bool* unlinked_out = nullptr,
                              std::string* path_out = nullptr);
  // This node's cached attributes of `path` are stale (told by its owner, or changed here).
  void Stale(const std::string& path);
  // This node changed `path` (`below`: and what is below it): what statahead holds of it goes.
  void Changed(const std::string& path, bool below = false) { statahead_.Changed(path, below); }
  // A lookup of `path` went to its owner and found it: reads its directory ahead when statahead
  // says so (statahead.h). Failures only cost the read-ahead.
  void ReadAhead(const std::string& path, const PathLayout& layout);
  // GetMeta of `path` at its owner, or the entry statahead read ahead; `asked_ns` is when the
  // owner read it, `ahead` whether it came from statahead.
  // `pid`: the process looking (0: unknown); when it is a stream of small files (Reserves), an
  // absent name is reserved for this node (ReserveName).
  Result<Metadata> LookupMeta(const std::string& path, const PathLayout& layout, int64_t* asked_ns, bool* ahead,
                              pid_t pid = 0);
  // REQUIRES inode.mu. `md` with this node's writes not yet published (size, times).
  static void OverlayUnpublished(const Inode& inode, Metadata* md);
  // REQUIRES inode.mu. The attributes in inode.meta, read from the owner by a request sent at
  // `asked_ns`, answer here for attr_cache_ns (a directory's for dir_attr_cache_ns) from then,
  // unless this node was `told` of a change meanwhile.
  void MarkFresh(Inode& inode, int64_t asked_ns, bool told) const;
  // An ask of an owner for a file's metadata, taken as it is sent: its time (MarkFresh), a ticket
  // that orders it among this node's asks, and whether it changes the file (TakeMeta).
  struct MetaAsk {
    int64_t ns = 0;
    uint64_t ticket = 0;
    bool change = false;
  };
  MetaAsk AskMeta(bool change = false) { return {clock_->MonotonicNs(), meta_tickets_.fetch_add(1) + 1, change}; }
  // REQUIRES inode.mu. Keeps `md`, the owner's answer to `ask`, in inode.meta, fresh unless
  // `*told` (MarkFresh). Answers on other threads come back in any order: a write behind's,
  // asked before a flush published a larger size, may come after the flush's. An answer to an
  // ask sent before the answer to a change of this node came may not hold that change (nobody
  // tells this node of its own changes): it is kept fresh for nobody (`*told` is set), so that
  // the next read asks the owner. Reads that overlap one another need no such care: a change by
  // another node between them is told (`*told` already).
  void TakeMeta(Inode& inode, const Metadata& md, const MetaAsk& ask, bool* told) const;
  // REQUIRES inode.mu. A change of this node that failed without an answer (a deadline, a broken
  // connection) may have been applied by its owner all the same: an answer to an ask sent before
  // now is no more to be trusted than one that crossed an answered change (TakeMeta), and the
  // copy here is not fresh. Returns `failed`.
  Status ChangeUnanswered(Inode& inode, Status failed) const;
  // The same for a removal of `path` (unlink, rmdir) that failed: the inode known there, if any,
  // and what statahead holds of it. Returns `failed`.
  Status RemovalUnanswered(const std::string& path, Status failed);
  // REQUIRES inode.mu. A directory's attributes in `e` are cached no longer than they answer
  // here.
  void BoundDirAttributes(const Inode& inode, Entry* e) const;
  // An update this node sent for `path`: its cached attributes, when fresh, take it as the
  // owner did (so they stay fresh).
  void AppliedToCached(const std::string& path, const MetaUpdate& u);
  // Invalidations told so far (take it before a read), and whether one named `path` since.
  uint64_t ToldSeq() const { return told_seq_.load(std::memory_order_acquire); }
  bool ToldSince(const std::string& path, uint64_t since) const;
  Result<Entry> CreateEntry(uint64_t parent, const std::string& name, Metadata md);
  // With `deferred`, the entry may be made here, when this node holds its name (DeferredCreates),
  // and `*deferred` says whether it was.
  Result<Entry> CreateEntryAt(const std::string& path, const PathLayout& layout, Metadata md, bool* deferred = nullptr);
  // Whether a lookup of `path` by `pid` asks its owner to reserve the name when absent.
  bool Reserves(const std::string& path, const PathLayout& layout, pid_t pid) const;
  // For such a lookup: the grant of the lease of `path`'s directory by which the name is absent
  // and reserved for this node (asking for the lease, or renewing it, first); 0 when there is none.
  uint64_t LeasedAbsent(const std::string& path, const PathLayout& layout);
  // `inode`'s path names another file now, or none: it was removed by another node (or moved, and
  // where to was not told), which told this node's kernel to drop the name. What this node knew of
  // it answers (an open file reads its own data; its writes, published at `path`, fail:
  // docs/consistency.md), and `path` no longer leads to it.
  Metadata Detached(const std::shared_ptr<Inode>& inode, const std::string& path);
  // Rename's move between two owners: `src` put at `to` (`fresh`: made there, EEXIST where an
  // entry is), then taken from `from`; when that fails, `to` is put back as it was (`dst`, or no
  // entry).
  Result<Metadata> MoveAcross(NodeService* from_owner, NodeService* to_owner, const std::string& from,
                              const std::string& to, const Metadata& src, const Metadata* dst, bool fresh = false);
  // Rename of directory `from`, which holds entries, to `to` (no entry, or `dst`: an empty
  // directory, or the same directory where a rename of it stopped halfway), its change time at
  // least `ctime_ns`: its entry is put at `to`, what is below moves (MoveDirectory). Returns the
  // moved directory's entry. On failure this node's kernel drops both names (SetOwnKernel).
  Result<Metadata> MoveTree(const PathLayout& layout, const std::string& from, const std::string& to, int64_t ctime_ns,
                            const Metadata* dst);
  // Whether `dst`, at `to`, may be replaced by a rename of `src`: ENOTDIR, EISDIR or ENOTEMPTY.
  Status ReplaceableBy(const Metadata& src, const Metadata& dst, const PathLayout& layout, const std::string& to);
  // MoveTree but for what a failure tells this node's kernel.
  Result<Metadata> MoveTreeEntries(const PathLayout& layout, const std::string& from, const std::string& to,
                                   int64_t ctime_ns, const Metadata* dst);
  // Directory `from`, whose entry `put` is at `to` already, moves: what is below it
  // (MoveEntriesBelow), then its entry, then what was made in it meanwhile; `to` counts its
  // subdirectories (those there already when `resumed`). `top`: the renamed directory itself,
  // whose entry gone already (another rename of it) is an error.
  Status MoveDirectory(const PathLayout& layout, const std::string& from, const std::string& to, const Metadata& put,
                       bool resumed, bool top);
  // The subdirectories directory `dir` holds.
  Result<int64_t> CountSubdirs(const PathLayout& layout, const std::string& dir);
  // Moves every entry of directory `from` (and below) to the same name in `to`, listing `from`
  // until it is empty (EBUSY when entries keep being made in it). Returns the directories moved.
  Result<int64_t> MoveEntriesBelow(const PathLayout& layout, const std::string& from, const std::string& to);
  // Moves entry `from` (with what is below it) to `to`, where no entry may be (EBUSY) but the same
  // directory; returns its type, none when `from` was removed meanwhile.
  Result<std::optional<FileType>> MoveEntryBelow(const PathLayout& layout, const std::string& from,
                                                 const std::string& to);
  // After this node moved `src` from `from` to `to`: its inode follows.
  void FollowRename(const Metadata& src, const std::string& from, const std::string& to);
  // This node is about to make `path` at its owner itself (not on a right: a create or a link to
  // it): an entry made here on it goes there first, so that the owner finds the name taken, and a
  // right held for it goes.
  Status MakingAtOwner(const std::string& path) {
    BB_RETURN_IF_ERROR(deferred_->SendNow(path));
    deferred_->Forget(path);
    return Status::Ok();
  }
  // A make of `path` by this node (DirLeases::Make); nothing to note where no lease can be (leases
  // off, a name this node holds itself, a node-private or replicated name).
  DirLeases::Making MakingName(const std::string& path, const PathLayout& layout) {
    if (!options_.dir_leases || layout.replicated || layout.node_private()) return {};
    NodeId owner = layout.MetaNode(path);
    return owner == self_ ? DirLeases::Making() : leases_.Make(path, owner);
  }
  // After a write of `file` that goes through (WritesThrough): its size reaches its entry, waiting
  // here (DeferredCreates) or at its owner.
  Status PublishThrough(OpenFile* file);
  // A write of [offset, offset + length) to a file made by its opener: notes a stream's file
  // that turned out large (CreateStreams).
  void NoteWriteOfMade(OpenFile* file, uint64_t offset, uint64_t length, uint64_t chunk_size);
  // What a write starts from: the file's metadata, its offset (an O_APPEND write's, reserved on a
  // node-private file), whether nothing of the size is unpublished or on its way, and the write's
  // number (Inode::writes). Reports an earlier write behind's error.
  struct WriteStart {
    Metadata md;
    uint64_t offset = 0;
    bool published = false;
    uint64_t seq = 0;
  };
  Result<WriteStart> StartWrite(OpenFile* file, uint64_t offset, uint64_t length, bool behind, bool shared_append);
  // Where the mode keeps a file's first chunk with its entry (layout.h): the size that goes with
  // write number `seq` of `file` (Inode::writes), when it is the first since the size was published
  // and lies in one chunk on the entry's node; null otherwise.
  std::shared_ptr<SizeAlong> SizeWith(OpenFile* file, const Metadata& md, uint64_t seq, uint64_t offset,
                                      uint64_t length);
  OpenFile* OpenWith(std::shared_ptr<Inode> inode, const Metadata& md, int flags, pid_t pid);
  // `parent`: the inode of the directory it is made in (0: none).
  Metadata NewMeta(uint64_t parent, FileType type, mode_t mode, const Caller& c, uint64_t file_id) const;
  void ApplyLayout(Metadata* md, const PathLayout& layout) const;
  Status PublishSize(const std::shared_ptr<Inode>& inode);
  // Tells the file's owner that fallocate reserved chunks up to `end`, past its size
  // (Metadata::alloc_end), and takes it into this node's copy.
  Status NoteAllocation(OpenFile* file, uint64_t end);
  // An extended attribute change (MetaUpdate::xattr), made by ChangeEntry.
  // LockNode for a file id read once; and one Lock request there as this node (the pid of a
  // lock held elsewhere answered as 0), asked again while that node recovers its locks
  // (EINPROGRESS; ENOLCK after kRecoveryWait). What another node keeps is noted in held_locks_.
  NodeId LockNodeOf(const OpenFile* file, uint64_t file_id) const;
  Result<std::optional<RangeLock>> AskLockNode(OpenFile* file, RangeLock want, bool test, bool wait_recovery = true);
  // SetLock and Flock but for the count: `want` set (or unlocked) as this node's.
  Result<std::optional<RangeLock>> SetRange(OpenFile* file, RangeLock want, bool wait_recovery = true);
  // The waits of this node's processes for `blocker` (an owner of this node that unlocked).
  void WaitsEnd(const LockOwner& blocker);
  // Drops every lock of `owner` of the file (of this node).
  Status ReleaseOwner(OpenFile* file, const LockOwner& owner);
  Status ChangeXattr(uint64_t ino, MetaUpdate u);
  // Applies `u` to the entry of `inode` at `path`: at its owner (every node's copy for a
  // replicated root, the local one last), or to its own copy when `unlinked`, after the owner's
  // checks (CheckUpdate). Returns the entry after, with this node's unpublished size.
  Result<Entry> ChangeEntry(const std::shared_ptr<Inode>& inode, const std::string& path, bool unlinked,
                            const MetaUpdate& u);
  // `data_gone`: its owner removed its chunks with the entry (NodeService::RemoveFile).
  Status DropEntryData(const Metadata& md, const std::string& path, bool data_gone = false);
  // A chunk write (`write`: here or behind, not one that carries a size) that finds a store full while files unlinked
  // here are still open is tried again once one of them is freed (waiting kFreedSpaceWait at most): the kernel sends a
  // file's last release after close() returned, so the write of `rm big; write` may come first.
  Status WriteFreeing(const std::function<Status()>& write);
  // Whether a release freed an unlinked file's data since freed_ was `seen` (waiting for one
  // while such files are open).
  bool AwaitFreed(uint64_t seen);
  static constexpr std::chrono::milliseconds kFreedSpaceWait{2000};
  // The entry at `path` while this node's attributes of it are fresh: its type, and when its
  // entry's node may remove its chunks with it, its file id (of one ordinary name, not open here,
  // and all its data, this node's unpublished writes too, in a first chunk on that node).
  struct FreshEntry {
    FileType type = FileType::kRegular;
    std::optional<uint64_t> data_with_entry;
  };
  std::optional<FreshEntry> FreshForRemoval(const std::string& path, const PathLayout& layout) const;
  // Hard links (file_links.cc). The path of the link record of a file named at `path`.
  std::string RecordPathOf(const std::string& path, uint64_t file_id) const;
  // `md` as read at `name_path`, or when it is a name of a linked file, its record (whose path
  // goes to `path_out`).
  Result<Metadata> FollowName(const std::string& name_path, Metadata md, std::string* path_out);
  void MoveToRecord(const std::shared_ptr<Inode>& inode, const std::string& record);
  // Applies `u` to the attributes of `inode`'s file at `path`, following it to its record when it
  // was linked meanwhile. Never to another file's entry: ENOENT when `path` no longer names the
  // file (removed, or replaced by another node, which did not tell where it went).
  Result<Metadata> UpdateAttributes(const std::shared_ptr<Inode>& inode, const std::string& path, MetaUpdate u);
  // A name of a linked file was removed: one name fewer in the record; the last frees the file.
  Status DropName(const std::string& path, const Metadata& name);
  Result<Metadata> MakeRecord(const std::shared_ptr<Inode>& inode, const std::string& path, const Metadata& md);
  // The nodes that may hold chunks [first, last) of a file placed by `data`.
  std::set<NodeId> ChunkNodes(const DataPlacement& data, uint64_t first, uint64_t last) const;
  Status RemoveChunksOf(const Metadata& md, uint64_t size_hint, const std::string& path);
  Status TruncateChunksOf(const Metadata& md, uint64_t old_size, uint64_t new_size, const std::string& path);
  Status LoadDirPage(DirHandle* dir);
  // An entry at `path` was made, removed or renamed (`subdirs`: directories made minus removed):
  // its parent's times and count move, coalesced (dir_changes.h).
  void NoteDirChange(const std::string& path, int32_t subdirs);
  void SendDirChange(const std::string& dir, const DirChanges::Change& c);
  // `md`, directory `dir`'s attributes as read after dir_changes_->Begin() gave `token`, with
  // what this node has not yet sent of its changes added. A read that a send of them overlapped
  // is done again with `reread` (twice, then with sends held off): each change counts once.
  Result<Metadata> WithDirChange(const std::string& dir, uint64_t token, Metadata md,
                                 const std::function<Result<Metadata>()>& reread);
  // Whether directory `dir` has no entry on any node that holds its entries.
  Result<bool> DirIsEmpty(const PathLayout& layout, const std::string& dir);
  // An O_APPEND write's offset on a file other nodes share, handed out by its metadata owner.
  Result<uint64_t> ReserveAppend(const std::shared_ptr<Inode>& inode, uint64_t length);
  NodeService* MetaOwner(const std::string& path) const;
  NodeService* MetaOwner(const PathLayout& layout, const std::string& path) const;
  // The service of data node `n`, counted as one data request of `read` / `written` bytes.
  NodeService* DataService(NodeId n, uint64_t read, uint64_t written) const;
  // The service of node `n` for a directory page, counted.
  NodeService* ListService(NodeId n) const;
  // The workspace `path` is in, when any workspace is profiled (else "": nothing to count).
  std::string Profiled(const std::string& path) const {
    return profiles_.active() ? router_->Resolve(path).domain : std::string();
  }
  void Count(FsOp op) const {
    if (stats_) stats_->Count(op);
  }

  const FileSystemOptions options_;
  const Router* const router_;
  const NodeId self_;  // router_->view().self
  const NodeResolver nodes_;
  FileIdAllocator* const ids_;
  const Clock* const clock_;
  NodeStats* const stats_;

  // Before fan_out_, which is destroyed first: it finishes the writes still queued, which
  // report to behind_.
  std::unique_ptr<WriteBehind> behind_;
  // Moves the chunks of one request at the same time, and the writes behind. Reset first by the
  // destructor: the writes still queued finish while everything they reach is there.
  std::unique_ptr<FanOut> fan_out_;

  Profiles profiles_;
  Statahead statahead_;
  HeldLocks held_locks_;  // those other nodes keep, as they answered (AskLockNode)
  struct LockWait {
    LockOwner blocker;
    uint64_t token = 0;
  };
  std::mutex waits_mu_;
  std::unordered_map<uint64_t, LockWait> lock_waits_;  // by this node's owner; guarded by waits_mu_
  CreateStreams streams_;

  mutable std::mutex table_mu_;  // guards inodes_, by_path_ and every Inode's path/nlookup/open_count
  std::unordered_map<uint64_t, std::shared_ptr<Inode>> inodes_;
  // The inode last known at each path (several may share one for a moment: a file recreated
  // while the old one is still known).
  std::unordered_map<std::string, uint64_t> by_path_;
  // Releases that freed an unlinked file's data; changed under table_mu_, with freed_cv_.
  std::atomic<uint64_t> freed_{0};
  std::condition_variable freed_cv_;

  // The last invalidations told (sequence, path), for ToldSince; a read older than the window
  // counts as told.
  mutable std::mutex told_mu_;
  std::deque<std::pair<uint64_t, std::string>> told_;
  std::atomic<uint64_t> told_seq_{0};
  std::atomic<uint64_t> meta_tickets_{0};  // AskMeta

  DirLeases leases_;

  // Last: their destructors send what is pending, through everything above.
  std::unique_ptr<ChunkRemovals> removals_;
  std::unique_ptr<DirChanges> dir_changes_;
  std::function<void(const std::vector<Invalidation>&)> own_kernel_;  // SetOwnKernel
  std::unique_ptr<DeferredCreates> deferred_;
  std::unique_ptr<IntervalFlusher> renewer_;  // RenewOpenCallbacks; stopped first
};

}  // namespace bb::fs
