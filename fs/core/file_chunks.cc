// A file's data when it goes: removal at the last close of an unlinked file, truncation, and
// which nodes are asked (only those that can hold chunks of the file).
#include <set>

#include "fs/core/fan_out.h"
#include "fs/core/file_system.h"
#include "fs/core/inode.h"

namespace bb::fs {
namespace {

// Past this many chunks, asking every node is cheaper than hashing every chunk index.
constexpr uint64_t kEnumerateChunksLimit = 4096;

}  // namespace

// After an entry left the namespace: free its data now, or at the last close if still open.
Status FileSystem::DropEntryData(const Metadata& md, const std::string& path) {
  if (md.type != FileType::kRegular) {
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
  return RemoveChunksOf(md, size, path);
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
  if (new_size >= old_size) return Status::Ok();  // growing: the new range reads as a hole
  DataPlacement data = router_->Resolve(path).Data(md.file_id, md.data_location);
  std::vector<FanOut::Task> tasks;
  for (NodeId n : ChunkNodes(data, new_size / md.chunk_size, ChunkCount(old_size, md.chunk_size))) {
    tasks.push_back(
        [this, n, &md, new_size] { return nodes_(n)->TruncateChunks(md.file_id, new_size, md.chunk_size); });
  }
  return fan_out_->Run(tasks);
}

}  // namespace bb::fs
