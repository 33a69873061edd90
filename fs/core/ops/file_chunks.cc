// A file when it goes: unlink, its data's removal (with the entry, behind it, or at the last close
// of an unlinked file), truncation, and which nodes are asked (only those that can hold chunks of
// the file, chunks fallocate reserved past its size included).
#include <algorithm>
#include <set>

#include "fs/core/data/fan_out.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"

namespace bb::fs {
namespace {

// Past this many chunks, asking every node is cheaper than hashing every chunk index.
constexpr uint64_t kEnumerateChunksLimit = 4096;

}  // namespace

Status FileSystem::Unlink(uint64_t parent, const std::string& name) {
  Count(FsOp::kUnlink);
  BB_ASSIGN_OR_RETURN(std::string path, ChildPath(parent, name));
  PathLayout layout = router_->Resolve(path);
  if (layout.replicated) return Status(EISDIR, path);
  NodeService* owner = MetaOwner(layout, path);
  // The type decides whether unlink may remove it: known here while fresh (a directory made at
  // the name since would have been told), else read from the owner.
  std::optional<FreshEntry> fresh = FreshForRemoval(path, layout);
  if (!fresh) {
    BB_ASSIGN_OR_RETURN(Metadata md, owner->GetMeta(path));
    fresh = FreshEntry{.type = md.type, .data_with_entry = std::nullopt};
  }
  if (fresh->type == FileType::kDirectory) return Status(EISDIR, path);
  NodeService::Removed removed;
  if (fresh->data_with_entry) {
    auto r = owner->RemoveFile(path, *fresh->data_with_entry);
    if (!r) return RemovalUnanswered(path, r.error());
    removed = std::move(*r);
  } else {
    auto r = owner->RemoveMeta(path);
    if (!r) return RemovalUnanswered(path, r.error());
    removed.entry = std::move(*r);
  }
  const Metadata& md = removed.entry;
  Changed(path);
  NoteDirChange(path, 0);
  if (profiles_.active()) profiles_.Removed(layout.domain, path, md.file_id, false, clock_->WallNs());
  if (md.link == LinkRole::kName) return DropName(path, md);
  return DropEntryData(md, path, removed.data_gone);
}

std::optional<FileSystem::FreshEntry> FileSystem::FreshForRemoval(const std::string& path,
                                                                  const PathLayout& layout) const {
  if (options_.attr_cache_ns <= 0) return std::nullopt;
  std::shared_ptr<Inode> inode = InodeAt(path);  // by_path_ names only inodes still at `path`
  if (!inode) return std::nullopt;
  bool open_here = false;
  {
    std::lock_guard lock(table_mu_);
    if (inode->unlinked) return std::nullopt;
    open_here = inode->open_count > 0;
  }
  std::lock_guard lock(inode->mu);
  const Metadata& md = inode->meta;
  if (clock_->MonotonicNs() >= inode->fresh_until_ns) return std::nullopt;
  FreshEntry fresh{.type = md.type, .data_with_entry = std::nullopt};
  if (!open_here && !layout.replicated && md.type == FileType::kRegular && md.link == LinkRole::kNone &&
      std::max(DataExtent(md), inode->size) <= md.chunk_size &&
      layout.Data(md.file_id, md.data_location).For(0) == layout.MetaNode(path)) {
    fresh.data_with_entry = md.file_id;
  }
  return fresh;
}

// After an entry left the namespace: free its data now (unless its owner did: `data_gone`), or at
// the last close if still open. An open here that raced an unlink whose owner removed the data
// reads holes, as an open on another node does.
Status FileSystem::DropEntryData(const Metadata& md, const std::string& path, bool data_gone) {
  if (md.type != FileType::kRegular || data_gone) {
    std::lock_guard lock(table_mu_);
    auto it = inodes_.find(md.file_id);
    if (it != inodes_.end()) it->second->unlinked = true;
    return Status::Ok();
  }
  uint64_t size = md.size;
  {
    std::lock_guard lock(table_mu_);
    auto it = inodes_.find(md.file_id);
    if (it != inodes_.end()) {
      Inode& inode = *it->second;
      inode.unlinked = true;
      std::lock_guard ilock(inode.mu);
      inode.meta = md;
      inode.meta.size = std::max(md.size, inode.size);
      size = inode.meta.size;
      if (inode.open_count > 0) return Status::Ok();  // Release frees it
    }
  }
  // The name is gone already, so the call that removed it succeeded. Chunks their stores cannot
  // free now (full to the last byte: a small file's chunk is a database value) stay until their
  // workspace goes, as removals without a journal do; a file id is never reused.
  (void)RemoveChunksOf(md, size, path);
  return Status::Ok();
}

std::set<NodeId> FileSystem::ChunkNodes(const DataPlacement& data, uint64_t first, uint64_t last) const {
  if (data.fixed()) return {data.For(0)};
  std::set<NodeId> nodes;
  if (last - first > kEnumerateChunksLimit) {
    for (NodeId n : AllNodes(*router_)) nodes.insert(n);
  } else {
    for (uint64_t i = first; i < last; ++i) nodes.insert(data.For(i));
  }
  return nodes;
}

// Only the nodes that can hold chunks of the file are asked. A file of one chunk on another
// node is freed there behind the call (chunk_removals.h); larger files at once, so that the
// space a large removal frees is free when it returns.
Status FileSystem::RemoveChunksOf(const Metadata& md, uint64_t size, const std::string& path) {
  size = std::max(size, md.alloc_end);  // chunks fallocate reserved past the size go too
  DataPlacement data = router_->Resolve(path).Data(md.file_id, md.data_location);
  std::set<NodeId> nodes = ChunkNodes(data, 0, ChunkCount(size, md.chunk_size));
  if (size <= md.chunk_size && nodes.size() == 1 && *nodes.begin() != self_ &&
      removals_->Note(*nodes.begin(), md.file_id)) {
    return Status::Ok();
  }
  // Every node's share at the same time: a large file's removal costs one round trip, not one
  // per node in a row.
  std::vector<FanOut::Task> tasks;
  for (NodeId n : nodes) tasks.push_back([this, n, id = md.file_id] { return nodes_(n)->RemoveChunks(id); });
  return fan_out_->Run(tasks);
}

Status FileSystem::TruncateChunksOf(const Metadata& md, uint64_t old_size, uint64_t new_size, const std::string& path) {
  if (new_size > old_size) return Status::Ok();  // growing: the new range reads as a hole
  // Not growing frees what fallocate reserved past the new size too, as local file systems do.
  old_size = std::max(old_size, md.alloc_end);
  if (new_size >= old_size) return Status::Ok();
  DataPlacement data = router_->Resolve(path).Data(md.file_id, md.data_location);
  std::vector<FanOut::Task> tasks;
  for (NodeId n : ChunkNodes(data, new_size / md.chunk_size, ChunkCount(old_size, md.chunk_size))) {
    tasks.push_back(
        [this, n, &md, new_size] { return nodes_(n)->TruncateChunks(md.file_id, new_size, md.chunk_size); });
  }
  return fan_out_->Run(tasks);
}

Status FileSystem::WriteFreeing(const std::function<Status()>& write) {
  const uint64_t seen = freed_.load(std::memory_order_acquire);
  Status s = write();
  if (s.code() != ENOSPC || !AwaitFreed(seen)) return s;
  return write();
}

bool FileSystem::AwaitFreed(uint64_t seen) {
  std::unique_lock lock(table_mu_);
  auto freed = [&] { return freed_.load(std::memory_order_acquire) != seen; };
  if (freed()) return true;
  bool waiting = std::any_of(inodes_.begin(), inodes_.end(),
                             [](const auto& i) { return i.second->unlinked && i.second->open_count > 0; });
  return waiting && freed_cv_.wait_for(lock, kFreedSpaceWait, freed);
}

}  // namespace bb::fs
