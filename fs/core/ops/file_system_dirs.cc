// Directories (paged listings merged from every node that holds entries), the space of all
// nodes, and workspaces of the core.
#include <algorithm>
#include <map>

#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/path.h"

namespace bb::fs {

Result<Entry> FileSystem::Mkdir(uint64_t parent, const std::string& name, mode_t mode, const Caller& c) {
  Count(FsOp::kMkdir);
  BB_ASSIGN_OR_RETURN(uint64_t id, ids_->Next());
  return CreateEntry(parent, name, NewMeta(parent, FileType::kDirectory, mode, c, id));
}

Status FileSystem::Rmdir(uint64_t parent, const std::string& name) {
  Count(FsOp::kRmdir);
  BB_ASSIGN_OR_RETURN(std::string path, ChildPath(parent, name));
  PathLayout layout = router_->Resolve(path);
  if (layout.replicated) return Status(EBUSY, path + " is a workspace: remove it with bbctl job stop");
  NodeService* owner = MetaOwner(layout, path);
  BB_ASSIGN_OR_RETURN(Metadata md, owner->GetMeta(path));
  if (md.type != FileType::kDirectory) return Status(ENOTDIR, path);
  BB_ASSIGN_OR_RETURN(bool empty, DirIsEmpty(layout, path));
  if (!empty) return Status(ENOTEMPTY, path);
  auto gone = owner->RemoveMeta(path);
  if (!gone) return RemovalUnanswered(path, gone.error());
  md = std::move(*gone);
  Changed(path);
  NoteDirChange(path, -1);
  if (profiles_.active()) profiles_.Removed(layout.domain, path, md.file_id, true, clock_->WallNs());
  return DropEntryData(md, path);
}

Result<SpaceStats> FileSystem::StatFs() {
  Count(FsOp::kStatFs);
  // What removals freed is free: `df` after `rm` (a failed one stays counted, not an error here).
  (void)removals_->Flush();
  SpaceStats total;
  bool first = true;
  for (NodeId n : AllNodes(*router_)) {
    BB_ASSIGN_OR_RETURN(SpaceStats s, nodes_(n)->StatSpace());
    if (first) {
      total = s;
      first = false;
      continue;
    }
    // Express every node in the first node's block size.
    auto scale = [&](uint64_t blocks) { return blocks * s.block_size / total.block_size; };
    total.total_blocks += scale(s.total_blocks);
    total.free_blocks += scale(s.free_blocks);
    total.avail_blocks += scale(s.avail_blocks);
  }
  return total;
}

// ---- what entries made and removed do to their directory (dir_changes.h) ----

void FileSystem::NoteDirChange(const std::string& path, int32_t subdirs) {
  if (path == "/") return;
  dir_changes_->Note(std::string(ParentPath(path)), clock_->WallNs(), subdirs);
}

Result<Metadata> FileSystem::WithDirChange(const std::string& dir, uint64_t token, Metadata md,
                                           const std::function<Result<Metadata>()>& reread) {
  for (int tries = 0;; ++tries) {
    std::unique_lock<std::mutex> hold;
    if (tries > 0) {
      if (tries > 2) hold = dir_changes_->HoldSends();  // no send overlaps this read
      token = dir_changes_->Begin();
      BB_ASSIGN_OR_RETURN(md, reread());
    }
    std::optional<DirChanges::Change> c = dir_changes_->After(dir, token);
    if (!c) continue;
    md.mtime_ns = std::max(md.mtime_ns, c->time_ns);
    md.ctime_ns = std::max(md.ctime_ns, c->time_ns);
    md.subdirs = static_cast<uint32_t>(std::max<int64_t>(0, int64_t{md.subdirs} + c->subdirs));
    return md;
  }
}

Result<bool> FileSystem::DirIsEmpty(const PathLayout& layout, const std::string& dir) {
  for (NodeId n : layout.DirNodes()) {
    BB_ASSIGN_OR_RETURN(DirPage page, ListService(n)->ListDir(dir, "", 1));
    if (!page.entries.empty()) return false;
  }
  return true;
}

void FileSystem::SendDirChange(const std::string& dir, const DirChanges::Change& c) {
  MetaUpdate u;
  u.touch_ns = c.time_ns;
  if (c.subdirs != 0) u.subdirs = c.subdirs;
  PathLayout layout = router_->Resolve(dir);
  // Every copy of a replicated directory (the root, a workspace root) takes the change. A
  // directory removed meanwhile (ENOENT) needs none; other failures lose this one change of
  // times and count, never an entry.
  auto count = [&](NodeId n) {
    if (stats_ && n != self_) stats_->CountDirUpdate();
  };
  if (layout.replicated) {
    for (NodeId n : AllNodes(*router_)) {
      count(n);
      (void)nodes_(n)->UpdateMeta(dir, u);
    }
  } else {
    count(layout.MetaNode(dir));
    (void)MetaOwner(layout, dir)->UpdateMeta(dir, u);
  }
  // The change is its owner's now, no longer in the overlay: this node's copy takes it too, and
  // statahead's older one goes.
  AppliedToCached(dir, u);
  Changed(dir);
}

Status FileSystem::Rename(uint64_t parent, const std::string& name, uint64_t new_parent, const std::string& new_name,
                          unsigned int flags) {
  Count(FsOp::kRename);
  if (flags & ~static_cast<unsigned>(RENAME_NOREPLACE)) return Status(EINVAL, "only RENAME_NOREPLACE is supported");
  BB_ASSIGN_OR_RETURN(std::string from, ChildPath(parent, name));
  BB_ASSIGN_OR_RETURN(std::string to, ChildPath(new_parent, new_name));
  if (from == to) return Status::Ok();
  if (IsSameOrBelow(to, from)) return Status(EINVAL, "cannot move a directory into itself");
  PathLayout from_layout = router_->Resolve(from);
  PathLayout to_layout = router_->Resolve(to);
  if (from_layout.replicated || to_layout.replicated) {
    return Status(EBUSY, "a workspace cannot be renamed or replaced");
  }
  if (from_layout.domain != to_layout.domain) {
    return Status(EXDEV, "rename between workspaces: " + from + " -> " + to);
  }
  NodeService* from_owner = MetaOwner(from_layout, from);
  NodeService* to_owner = MetaOwner(to_layout, to);
  BB_ASSIGN_OR_RETURN(Metadata src, from_owner->GetMeta(from));
  auto dst = to_owner->GetMeta(to);
  if (!dst && dst.error().code() != ENOENT) return dst.error();
  bool src_dir = src.type == FileType::kDirectory;
  // The same directory at both names: a rename of it that stopped halfway, which goes on.
  const bool resume = dst && src_dir && dst->file_id == src.file_id;
  if (dst && !resume) {
    if (flags & RENAME_NOREPLACE) return Status(EEXIST, to);
    if (dst->file_id == src.file_id) return Status::Ok();
    BB_RETURN_IF_ERROR(ReplaceableBy(src, *dst, to_layout, to));
  }
  // A directory that holds entries moves with them, one entry at a time (MoveTree).
  bool tree = resume;
  if (src_dir && !resume) {
    BB_ASSIGN_OR_RETURN(bool empty, DirIsEmpty(from_layout, from));
    tree = !empty;
  }
  bool dst_dir = dst && dst->type == FileType::kDirectory;
  // A right or an entry of this node's at `to` went to its owner with the read of `dst` above (its
  // owner asks its holder for a name absent there), so nothing waits here to give up.
  auto making = MakingName(to, to_layout);
  int64_t now = clock_->WallNs();  // the moved file's change time, as local file systems keep it
  if (tree) {
    BB_ASSIGN_OR_RETURN(src, MoveTree(from_layout, from, to, now, dst ? &*dst : nullptr));
  } else if (from_owner == to_owner) {
    BB_ASSIGN_OR_RETURN(src, from_owner->MoveMeta(from, to, now));
  } else {
    if (src.link != LinkRole::kName) src.ctime_ns = std::max(src.ctime_ns, now);
    BB_ASSIGN_OR_RETURN(src, MoveAcross(from_owner, to_owner, from, to, src, dst ? &*dst : nullptr));
  }
  Changed(from, tree);
  Changed(to, tree);
  FollowRename(src, from, to);
  NoteDirChange(from, src_dir ? -1 : 0);
  NoteDirChange(to, (src_dir ? 1 : 0) - (dst_dir ? 1 : 0));
  if (profiles_.active() && !src_dir) profiles_.Renamed(from_layout.domain, from, to, src.file_id, clock_->WallNs());
  if (dst && !resume) return dst->link == LinkRole::kName ? DropName(to, *dst) : DropEntryData(*dst, to);
  return Status::Ok();
}

Status FileSystem::ReplaceableBy(const Metadata& src, const Metadata& dst, const PathLayout& layout,
                                 const std::string& to) {
  bool src_dir = src.type == FileType::kDirectory, dst_dir = dst.type == FileType::kDirectory;
  if (src_dir && !dst_dir) return Status(ENOTDIR, to);
  if (!src_dir && dst_dir) return Status(EISDIR, to);
  if (dst_dir) {
    BB_ASSIGN_OR_RETURN(bool empty, DirIsEmpty(layout, to));
    if (!empty) return Status(ENOTEMPTY, to);
  }
  return Status::Ok();
}

// ---- workspaces ----

Status FileSystem::CreateWorkspace(const std::string& name, const WorkspaceSpec& spec, const Caller& owner) {
  BB_RETURN_IF_ERROR(ValidateWorkspaceName(name));
  if (router_->Resolve("/" + name).replicated) return Status(EEXIST, "workspace " + name + " exists");
  BB_ASSIGN_OR_RETURN(uint64_t id, ids_->Next());
  Metadata root = NewMeta(0, FileType::kDirectory, 0755, owner, id);
  std::vector<NodeId> done;
  for (NodeId n : AllNodes(*router_)) {
    Status s = nodes_(n)->PutWorkspace(name, spec, root);
    if (!s.ok()) {
      // Leave no node routing a workspace the others do not know.
      for (NodeId d : done) (void)nodes_(d)->DropWorkspace(name);
      return s.Annotate("workspace " + name + " on node " + std::to_string(n));
    }
    done.push_back(n);
  }
  NoteDirChange("/" + name, 1);
  return Status::Ok();
}

Status FileSystem::RemoveWorkspace(const std::string& name, const WorkspaceRouter& workspaces, const Caller& who) {
  BB_RETURN_IF_ERROR(ValidateWorkspaceName(name));
  if (!workspaces.Find(name)) return Status(ENOENT, "no workspace " + name);
  const std::string dir = "/" + name;
  if (who.uid != 0) {
    // A root another run already half removed has no metadata left: nothing to protect.
    auto root = MetaOwner(dir)->GetMeta(dir);
    if (root && root->uid != who.uid) {
      return Status(EPERM, "workspace " + name + " belongs to uid " + std::to_string(root->uid) +
                               ": only its owner or root may remove it");
    }
  }
  constexpr uint32_t kBatch = 4096;
  // Every node holds its own share of the entries (in mode 1, its own files); the data of a
  // file may be on any node, so each batch of removed files is dropped everywhere.
  const std::vector<NodeId> all = AllNodes(*router_);
  for (NodeId n : all) {
    for (;;) {
      BB_ASSIGN_OR_RETURN(PurgePage page, nodes_(n)->PurgeTree(dir, kBatch));
      if (!page.file_ids.empty()) {
        for (NodeId m : all) {
          BB_RETURN_IF_ERROR(nodes_(m)->RemoveFiles(page.file_ids).Annotate("node " + std::to_string(m)));
        }
      }
      if (!page.more) break;
    }
  }
  for (NodeId n : all) {
    BB_RETURN_IF_ERROR(nodes_(n)->DropWorkspace(name).Annotate("node " + std::to_string(n)));
  }
  NoteDirChange(dir, -1);
  Changed(dir, /*below=*/true);
  // Forget the paths the kernel still knows below the workspace: they are gone.
  std::lock_guard lock(table_mu_);
  for (auto& [ino, inode] : inodes_) {
    if (IsSameOrBelow(inode->path, dir)) inode->unlinked = true;
  }
  return Status::Ok();
}

size_t FileSystem::KnownInodes() const {
  std::lock_guard lock(table_mu_);
  return inodes_.size();
}

// ---- directories ----

Result<DirHandle*> FileSystem::OpenDir(uint64_t ino) {
  Count(FsOp::kOpenDir);
  BB_ASSIGN_OR_RETURN(std::string path, PathOf(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, MetaOwner(path)->GetMeta(path));
  if (md.type != FileType::kDirectory) return Status(ENOTDIR, path);
  auto dir = std::make_unique<DirHandle>();
  dir->ino = ino;
  dir->path = path;
  dir->parent_ino = ino;
  if (path != "/") {
    std::string parent(ParentPath(path));
    auto pmd = MetaOwner(parent)->GetMeta(parent);
    if (pmd) dir->parent_ino = pmd->file_id;
  }
  if (profiles_.active()) profiles_.ListDir(Profiled(path), path, clock_->WallNs());
  dir->entries.push_back({".", ino, FileType::kDirectory});
  dir->entries.push_back({"..", dir->parent_ino, FileType::kDirectory});
  return dir.release();
}

// Merges the next page from every node that may hold entries of the directory. Only names up
// to the smallest "last name" among nodes that have more are final; the rest come again with
// the next page.
Status FileSystem::LoadDirPage(DirHandle* dir) {
  Count(FsOp::kReadDirPage);
  std::map<std::string, DirListing> merged;
  std::optional<std::string> bound;  // nullopt: every node reached its end
  for (NodeId n : router_->Resolve(dir->path).DirNodes()) {
    BB_ASSIGN_OR_RETURN(DirPage page, ListService(n)->ListDir(dir->path, dir->cursor, options_.dir_page));
    for (auto& e : page.entries) {
      merged.emplace(e.name, DirListing{e.name, e.file_id, e.type});
    }
    if (!page.end && !page.entries.empty()) {
      const std::string& last = page.entries.back().name;
      if (!bound || last < *bound) bound = last;
    }
  }
  for (auto& [name, listing] : merged) {
    if (bound && name > *bound) break;
    dir->entries.push_back(std::move(listing));
  }
  if (bound) {
    dir->cursor = *bound;
  } else {
    dir->complete = true;
  }
  return Status::Ok();
}

Result<std::optional<DirListing>> FileSystem::DirEntryAt(DirHandle* dir, uint64_t index) {
  while (index >= dir->entries.size() && !dir->complete) {
    BB_RETURN_IF_ERROR(LoadDirPage(dir));
  }
  if (index >= dir->entries.size()) return std::optional<DirListing>();
  return std::optional<DirListing>(dir->entries[index]);
}

void FileSystem::ReleaseDir(DirHandle* dir) { delete dir; }

}  // namespace bb::fs
