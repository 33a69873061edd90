// Namespace operations of the core: lookup, attributes, create/remove/rename.
#include "fs/core/file_system.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "fs/core/data/fan_out.h"
#include "fs/core/data/interval_flusher.h"
#include "fs/core/data/write_behind.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/path.h"

namespace bb::fs {

FileSystem::FileSystem(FileSystemOptions options, const Router* router, NodeResolver nodes, FileIdAllocator* ids,
                       const Clock* clock, NodeStats* stats)
    : options_(options),
      router_(router),
      self_(router->view().self),
      nodes_(std::move(nodes)),
      ids_(ids),
      clock_(clock),
      stats_(stats),
      fan_out_(std::make_unique<FanOut>(options.io_threads)),
      profiles_(router->view().self),
      statahead_(
          {.fresh_ns = options.statahead_window > 0 ? options.attr_cache_ns : 0, .window = options.statahead_window}) {
  // Writes behind are sent by the fan-out's helpers: none without them.
  behind_ = std::make_unique<WriteBehind>(options.io_threads > 0 ? options.write_behind_bytes : 0, fan_out_.get(),
                                          [this](const std::function<Status()>& w) { return WriteFreeing(w); });
  auto root = std::make_shared<Inode>(kRootFileId);
  root->nlookup = 1;  // the kernel's reference to the root is never forgotten
  SetPathLocked(*root, "/");
  inodes_.emplace(kRootFileId, std::move(root));
  if (options_.prefault_write_behind) behind_->Prefault(options_.chunk_size);
  removals_ = std::make_unique<ChunkRemovals>(
      [this](NodeId n, const std::vector<uint64_t>& ids) {
        // A journal of an earlier run may name a node this cluster no longer has: nothing of
        // this cluster is there.
        return n < router_->view().nodes ? nodes_(n)->RemoveFiles(ids) : Status::Ok();
      },
      std::chrono::milliseconds(options_.chunk_removal_ms), kMaxChunkRemovals, options_.chunk_removal_journal);
  dir_changes_ = std::make_unique<DirChanges>(
      [this](const std::string& dir, const DirChanges::Change& c) { SendDirChange(dir, c); },
      std::chrono::milliseconds(options_.dir_change_ms));
  deferred_ = std::make_unique<DeferredCreates>(
      [this](NodeId owner, const std::vector<MadeEntry>& made,
             const std::vector<NameGrant>& released) -> Result<std::vector<int>> {
        if (owner >= router_->view().nodes) return Status(EHOSTUNREACH, "no node " + std::to_string(owner));
        if (stats_) stats_->Meta(owner);
        return nodes_(owner)->MakeEntries(made, released);
      },
      std::chrono::milliseconds(options_.deferred_create_ms), kMaxDeferredCreates, clock_);
  if (options_.attr_cache_ns > 0 && router_->view().nodes > 1) {
    const auto every = std::chrono::milliseconds(std::max<int64_t>(options_.attr_cache_ns / 2'000'000, 1));
    renewer_ = std::make_unique<IntervalFlusher>("bb-renew", every, [this, every] {
      RenewOpenCallbacks();
      renewer_->WakeAt(std::chrono::steady_clock::now() + every);
    });
    renewer_->WakeAt(std::chrono::steady_clock::now() + every);
  }
}

// Writes behind that carry a size tell this object when they are done (SizeAlong::taken).
FileSystem::~FileSystem() {
  if (renewer_) renewer_->Stop();  // its flush re-arms it through renewer_: stopped before reset
  renewer_.reset();
  fan_out_.reset();
}

// The root directory and workspace roots are kept on every node (see file_system.h): reads
// are local.
NodeService* FileSystem::MetaOwner(const std::string& path) const { return MetaOwner(router_->Resolve(path), path); }

NodeService* FileSystem::MetaOwner(const PathLayout& layout, const std::string& path) const {
  if (layout.replicated) {
    if (stats_) stats_->CountReplicated();
    return nodes_(layout.view.self);
  }
  NodeId n = layout.MetaNode(path);
  if (stats_) stats_->Meta(n);
  return nodes_(n);
}

NodeService* FileSystem::DataService(NodeId n, uint64_t read, uint64_t written) const {
  if (stats_) stats_->Data(n, read, written);
  return nodes_(n);
}

NodeService* FileSystem::ListService(NodeId n) const {
  if (stats_) stats_->Meta(n);
  return nodes_(n);
}

bool FileSystem::KeepCache(const OpenFile* file) { return file->node_private; }

bool FileSystem::WritesThrough(const OpenFile* file) { return file->write_through; }

bool FileSystem::Reserves(const std::string& path, const PathLayout& layout, pid_t pid) const {
  if (!options_.small_file_streams || pid <= 0 || layout.replicated || layout.node_private()) return false;
  return layout.MetaNode(path) != self_ && deferred_->HasRoom() &&
         streams_.ExpectSmall(pid, ParentPath(path), clock_->MonotonicNs());
}

Status FileSystem::Init(const Caller& owner) {
  Metadata md = NewMeta(0, FileType::kDirectory, 0755, owner, kRootFileId);
  for (NodeId n : AllNodes(*router_)) {
    auto existing = nodes_(n)->GetMeta("/");
    if (existing) continue;
    if (existing.error().code() != ENOENT) return existing.error();
    Status s = nodes_(n)->CreateMeta("/", md);
    if (!s.ok() && s.code() != EEXIST) return s;
  }
  return Status::Ok();
}

Metadata FileSystem::NewMeta(uint64_t parent, FileType type, mode_t mode, const Caller& c, uint64_t file_id) const {
  Metadata md;
  md.type = type;
  md.mode = mode & 07777;
  md.uid = c.uid;
  md.gid = c.gid;
  // A directory with its set-group-ID bit passes its group on, and the bit to new directories
  // (as local file systems do; the kernel has already dropped S_ISGID the caller may not set).
  auto dir = parent == 0 ? Result<std::shared_ptr<Inode>>(Status(ENOENT, "no parent")) : FindInode(parent);
  if (dir) {
    std::lock_guard lock((*dir)->mu);
    if ((*dir)->meta.mode & S_ISGID) {
      md.gid = (*dir)->meta.gid;
      if (type == FileType::kDirectory) md.mode |= S_ISGID;
    }
  }
  md.atime_ns = md.mtime_ns = md.ctime_ns = clock_->WallNs();
  md.file_id = file_id;
  md.chunk_size = options_.chunk_size;
  return md;
}

// A new entry gets the layout fields of the workspace it is in.
void FileSystem::ApplyLayout(Metadata* md, const PathLayout& layout) const {
  if (!layout.domain.empty()) md->chunk_size = layout.spec.chunk_size;
  if (md->type == FileType::kRegular) md->data_location = layout.NewDataLocation();
}

Result<std::shared_ptr<Inode>> FileSystem::FindInode(uint64_t ino) const {
  std::lock_guard lock(table_mu_);
  auto it = inodes_.find(ino);
  if (it == inodes_.end()) return Status(ESTALE, "inode " + std::to_string(ino) + " is not known");
  return it->second;
}

FileSystem::Named FileSystem::NameOf(const Inode& inode) const {
  std::lock_guard lock(table_mu_);
  return Named{.path = inode.path, .unlinked = inode.unlinked};
}

Result<std::string> FileSystem::PathOf(uint64_t ino) const {
  std::lock_guard lock(table_mu_);
  auto it = inodes_.find(ino);
  if (it == inodes_.end()) return Status(ESTALE, "inode " + std::to_string(ino) + " is not known");
  if (it->second->unlinked) return Status(ENOENT, "inode " + std::to_string(ino) + " was removed");
  return it->second->path;
}

Result<std::string> FileSystem::ChildPath(uint64_t parent, const std::string& name) const {
  BB_RETURN_IF_ERROR(ValidateName(name));
  BB_ASSIGN_OR_RETURN(std::string dir, PathOf(parent));
  return JoinPath(dir, name);
}

Entry FileSystem::Remember(const std::string& path, const Metadata& md) {
  std::lock_guard lock(table_mu_);
  auto& slot = inodes_[md.file_id];
  if (!slot) slot = std::make_shared<Inode>(md.file_id);
  SetPathLocked(*slot, path);
  slot->unlinked = false;
  slot->nlookup++;
  bool node_private = router_->Resolve(path).node_private();
  slot->node_private.store(node_private, std::memory_order_relaxed);
  return Entry{md.file_id, md, node_private};
}

Result<Entry> FileSystem::Lookup(uint64_t parent, const std::string& name, pid_t pid) {
  Count(FsOp::kLookup);
  BB_ASSIGN_OR_RETURN(std::string path, ChildPath(parent, name));
  std::string profiled = Profiled(path);
  if (!profiled.empty()) profiles_.Lookup(profiled, std::string(ParentPath(path)), clock_->WallNs());
  PathLayout layout = router_->Resolve(path);
  MetaAsk ask = AskMeta();  // its time is when the owner read the entry (LookupMeta)
  bool ahead;
  uint64_t since = ToldSeq();
  const uint64_t token = dir_changes_->Begin();
  BB_ASSIGN_OR_RETURN(Metadata md, LookupMeta(path, layout, &ask.ns, &ahead, pid));
  if (!profiled.empty()) {
    profiles_.Stat(profiled, path, md.file_id, md.type == FileType::kDirectory, /*count=*/false, clock_->WallNs());
  }
  if (md.type == FileType::kDirectory) {
    auto reread = [this, &path] { return MetaOwner(path)->GetMeta(path); };  // small: no allocation
    BB_ASSIGN_OR_RETURN(md, WithDirChange(path, token, std::move(md), reread));
  }
  std::string attr_path = path;  // a linked file's: its record
  BB_ASSIGN_OR_RETURN(md, FollowName(path, md, &attr_path));
  Entry e = Remember(attr_path, md);
  e.told = ToldSince(path, since) || ToldSince(attr_path, since);
  // Read ahead: the owner's promise runs from its read, not from now.
  if (ahead) e.fresh_left_ns = std::max<int64_t>(0, ask.ns + options_.attr_cache_ns - clock_->MonotonicNs());
  {
    // An open file of this node may have unpublished writes.
    BB_ASSIGN_OR_RETURN(auto inode, FindInode(e.ino));
    std::lock_guard lock(inode->mu);
    TakeMeta(*inode, e.md, ask, &e.told);  // as FreshMeta keeps what it read
    BoundDirAttributes(*inode, &e);
    if (inode->size_dirty) e.md.size = std::max(e.md.size, inode->size);
  }
  if (!ahead) ReadAhead(path, layout);
  return e;
}

void FileSystem::Forget(uint64_t ino, uint64_t n) {
  if (ino == kRootFileId) return;
  std::lock_guard lock(table_mu_);
  auto it = inodes_.find(ino);
  if (it == inodes_.end()) return;
  Inode& inode = *it->second;
  inode.nlookup = inode.nlookup > n ? inode.nlookup - n : 0;
  if (inode.nlookup == 0 && inode.open_count == 0) {
    ErasePathLocked(inode);
    inodes_.erase(it);
  }
}

Result<Entry> FileSystem::GetAttr(uint64_t ino) {
  Count(FsOp::kGetAttr);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  bool unlinked = false;
  std::string path;
  uint64_t since = ToldSeq();
  const uint64_t token = dir_changes_->Begin();
  BB_ASSIGN_OR_RETURN(Metadata md, CachedMeta(inode, &unlinked, &path));
  if (md.type == FileType::kDirectory && !unlinked) {
    BB_ASSIGN_OR_RETURN(md, WithDirChange(path, token, std::move(md), [&] { return FreshMeta(inode); }));
  }
  if (profiles_.active()) {
    profiles_.Stat(Profiled(path), path, md.file_id, md.type == FileType::kDirectory, true, clock_->WallNs());
  }
  Entry e{ino, md, inode->node_private.load(std::memory_order_relaxed)};
  e.unlinked = unlinked;  // read with the path, under the one lock FreshMeta takes
  e.told = ToldSince(path, since);
  if (options_.attr_cache_ns > 0 && !e.node_private) {
    // Answered from this node's copy: the kernel may keep it only as long as the copy is fresh.
    std::lock_guard lock(inode->mu);
    e.fresh_left_ns = std::max<int64_t>(0, inode->fresh_until_ns - clock_->MonotonicNs());
  }
  return e;
}

Result<bool> FileSystem::DropSetIdOnWrite(OpenFile* file) {
  uint32_t mode;
  {
    std::lock_guard lock(file->inode->mu);
    mode = file->inode->meta.mode;
  }
  uint32_t kept = mode & ~S_ISUID;
  if ((kept & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP)) kept &= ~S_ISGID;
  if (kept == mode) return false;
  SetAttrRequest r;
  r.mode = kept;
  BB_RETURN_IF_ERROR(SetAttr(file->inode->ino, r, file).status());
  return true;
}

Result<Entry> FileSystem::SetAttr(uint64_t ino, const SetAttrRequest& req, OpenFile* /*file*/) {
  Count(FsOp::kSetAttr);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, FreshMeta(inode));
  auto [path, unlinked] = NameOf(*inode);
  int64_t now = clock_->WallNs();
  MetaUpdate u;
  u.mode = req.mode;
  u.uid = req.uid;
  u.gid = req.gid;
  u.atime_ns = req.atime_ns;
  u.mtime_ns = req.mtime_ns;
  u.ctime_ns = now;
  if (req.size) {
    if (md.type == FileType::kDirectory) return Status(EISDIR, "truncate of a directory");
    if (md.type != FileType::kRegular) return Status(EINVAL, "truncate of a non-regular file");
    BB_RETURN_IF_ERROR(WriteBehind::Wait(inode->behind, false));  // no write behind lands past the cut
    BB_RETURN_IF_ERROR(TruncateChunksOf(md, md.size, *req.size, path));
    if (profiles_.active()) profiles_.Truncated(Profiled(path), md.file_id, now);
    u.size = *req.size;
    if (!req.mtime_ns) u.mtime_ns = now;
    std::lock_guard lock(inode->mu);
    inode->size = *req.size;
    inode->size_dirty = false;
  }
  return ChangeEntry(inode, path, unlinked, u);
}

Result<Entry> FileSystem::ChangeEntry(const std::shared_ptr<Inode>& inode, const std::string& path, bool unlinked,
                                      const MetaUpdate& u) {
  if (unlinked) {  // the open file's own copy is the only one left
    std::lock_guard lock(inode->mu);
    BB_RETURN_IF_ERROR(CheckUpdate(u, inode->meta, path));
    ApplyUpdate(u, &inode->meta);
    return Entry{inode->ino, inode->meta, inode->node_private.load(std::memory_order_relaxed)};
  }
  if (router_->Resolve(path).replicated) {
    // Every node keeps a copy: change them all, the local one last.
    for (NodeId n : AllNodes(*router_)) {
      if (n != self_) BB_RETURN_IF_ERROR(nodes_(n)->UpdateMeta(path, u).status());
    }
  }
  const MetaAsk ask = AskMeta(/*change=*/true);
  auto changed = UpdateAttributes(inode, path, u);
  std::lock_guard lock(inode->mu);
  if (!changed) return ChangeUnanswered(*inode, changed.error());
  Metadata md = std::move(*changed);
  bool told = true;  // its answer is not what makes the copy here fresh
  TakeMeta(*inode, md, ask, &told);
  if (inode->size_dirty) md.size = std::max(md.size, inode->size);
  return Entry{inode->ino, md, inode->node_private.load(std::memory_order_relaxed)};
}

Result<Entry> FileSystem::CreateEntry(uint64_t parent, const std::string& name, Metadata md) {
  BB_ASSIGN_OR_RETURN(std::string path, ChildPath(parent, name));
  return CreateEntryAt(path, router_->Resolve(path), std::move(md));
}

Result<Entry> FileSystem::CreateEntryAt(const std::string& path, const PathLayout& layout, Metadata md,
                                        bool* deferred) {
  ApplyLayout(&md, layout);
  const MetaAsk ask = AskMeta();
  uint64_t since = ToldSeq();
  // On a name its owner reserved for this node, the entry is made here and goes to the owner
  // later (DeferredCreates); else a right this node holds goes with the owner's make.
  auto making = MakingName(path, layout);
  if (deferred != nullptr) *deferred = deferred_->Make(path, md);
  if (deferred == nullptr || !*deferred) {
    BB_RETURN_IF_ERROR(MakingAtOwner(path));
    BB_RETURN_IF_ERROR(MetaOwner(layout, path)->CreateMeta(path, md));
  }
  NoteDirChange(path, md.type == FileType::kDirectory ? 1 : 0);
  if (profiles_.active()) {
    profiles_.Created(layout.domain, path, md.file_id, md.type == FileType::kDirectory, 0, clock_->WallNs());
  }
  Entry e = Remember(path, md);
  e.told = ToldSince(path, since);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(e.ino));
  std::lock_guard lock(inode->mu);
  TakeMeta(*inode, md, ask, &e.told);  // what its owner holds now
  BoundDirAttributes(*inode, &e);
  return e;
}

Result<Entry> FileSystem::Mknod(uint64_t parent, const std::string& name, mode_t mode, dev_t rdev, const Caller& c) {
  Count(FsOp::kMknod);
  std::optional<FileType> type = FileTypeOf(mode);
  if (!type || *type == FileType::kDirectory || *type == FileType::kSymlink) {
    return Status(EINVAL, "mknod of a type other than a file, FIFO, socket or device");
  }
  bool device = *type == FileType::kCharDevice || *type == FileType::kBlockDevice;
  if (device && c.uid != 0) return Status(EPERM, "only root makes device nodes");
  BB_ASSIGN_OR_RETURN(uint64_t id, ids_->Next());
  Metadata md = NewMeta(parent, *type, mode, c, id);
  if (device) md.rdev = rdev;
  return CreateEntry(parent, name, std::move(md));
}

Result<Entry> FileSystem::Symlink(uint64_t parent, const std::string& name, const std::string& target,
                                  const Caller& c) {
  Count(FsOp::kSymlink);
  if (target.empty()) return Status(ENOENT, "empty symlink target");
  if (target.size() >= kPosixPathMax) return Status(ENAMETOOLONG, "symlink target too long");
  BB_ASSIGN_OR_RETURN(uint64_t id, ids_->Next());
  Metadata md = NewMeta(parent, FileType::kSymlink, 0777, c, id);
  md.symlink_target = target;
  md.size = target.size();
  return CreateEntry(parent, name, std::move(md));
}

Result<std::string> FileSystem::Readlink(uint64_t ino) {
  Count(FsOp::kReadlink);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, FreshMeta(inode));
  if (md.type != FileType::kSymlink) return Status(EINVAL, "not a symlink");
  return md.symlink_target;
}

}  // namespace bb::fs
