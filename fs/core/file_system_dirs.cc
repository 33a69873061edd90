// Directories (paged listings merged from every node that holds entries), the space of all
// nodes, and workspaces of the core.
#include <map>

#include "fs/core/file_system.h"
#include "fs/core/inode.h"
#include "fs/core/path.h"

namespace bb::fs {

Result<SpaceStats> FileSystem::StatFs() {
  Count(FsOp::kStatFs);
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

// ---- workspaces ----

Status FileSystem::CreateWorkspace(const std::string& name, const WorkspaceSpec& spec, const Caller& owner) {
  BB_RETURN_IF_ERROR(ValidateWorkspaceName(name));
  if (router_->Resolve("/" + name).replicated) return Status(EEXIST, "workspace " + name + " exists");
  BB_ASSIGN_OR_RETURN(uint64_t id, ids_->Next());
  Metadata root = NewMeta(FileType::kDirectory, 0755, owner, id);
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
