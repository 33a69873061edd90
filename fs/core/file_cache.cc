// What this node caches of other nodes' metadata, and what its kernel may hold: the inode at
// each path, attributes fresh from their owners (FileSystemOptions::attr_cache_ns), and the
// invalidations those owners told (fs/core/coherence.h).
#include "fs/core/file_system.h"
#include "fs/core/inode.h"
#include "fs/core/path.h"

namespace bb::fs {

Result<Metadata> FileSystem::CachedMeta(const std::shared_ptr<Inode>& inode, bool* unlinked_out,
                                        std::string* path_out) {
  if (options_.attr_cache_ns > 0) {
    std::string path;
    bool unlinked;
    {
      std::lock_guard lock(table_mu_);
      path = inode->path;
      unlinked = inode->unlinked;
    }
    std::lock_guard lock(inode->mu);
    if (!unlinked && clock_->MonotonicNs() < inode->fresh_until_ns) {
      if (unlinked_out) *unlinked_out = false;
      if (path_out) *path_out = path;
      Metadata md = inode->meta;
      OverlayUnpublished(*inode, &md);
      return md;
    }
  }
  return FreshMeta(inode, unlinked_out, path_out);
}

void FileSystem::OverlayUnpublished(const Inode& inode, Metadata* md) {
  if (!inode.size_dirty) return;
  md->size = std::max(md->size, inode.size);
  md->mtime_ns = std::max(md->mtime_ns, inode.dirty_mtime_ns);
  md->ctime_ns = std::max(md->ctime_ns, inode.dirty_mtime_ns);
}

void FileSystem::MarkFresh(Inode& inode, int64_t asked_ns, bool told) const {
  if (options_.attr_cache_ns > 0 && !told) inode.fresh_until_ns = asked_ns + options_.attr_cache_ns;
}

std::shared_ptr<Inode> FileSystem::InodeAt(const std::string& path) const {
  std::lock_guard lock(table_mu_);
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return nullptr;
  auto in = inodes_.find(it->second);
  return in == inodes_.end() ? nullptr : in->second;
}

void FileSystem::Stale(const std::string& path) {
  std::shared_ptr<Inode> inode = InodeAt(path);
  if (!inode) return;
  std::lock_guard lock(inode->mu);
  inode->fresh_until_ns = 0;
}

void FileSystem::AppliedToCached(const std::string& path, const MetaUpdate& u) {
  std::shared_ptr<Inode> inode = InodeAt(path);
  if (!inode) return;
  std::lock_guard lock(inode->mu);
  if (clock_->MonotonicNs() < inode->fresh_until_ns) ApplyUpdate(u, &inode->meta);
}

std::optional<FileType> FileSystem::FreshType(const std::string& path) const {
  if (options_.attr_cache_ns <= 0) return std::nullopt;
  std::shared_ptr<Inode> inode = InodeAt(path);  // by_path_ names only inodes still at `path`
  if (!inode) return std::nullopt;
  {
    std::lock_guard lock(table_mu_);
    if (inode->unlinked) return std::nullopt;
  }
  std::lock_guard lock(inode->mu);
  if (clock_->MonotonicNs() >= inode->fresh_until_ns) return std::nullopt;
  return inode->meta.type;
}

void FileSystem::Invalidated(const std::vector<Invalidation>& items) {
  constexpr size_t kToldWindow = 4096;
  {
    std::lock_guard lock(told_mu_);
    for (const Invalidation& item : items) {
      told_.emplace_back(told_seq_.load(std::memory_order_relaxed) + 1, item.path);
      told_seq_.fetch_add(1, std::memory_order_release);
      if (told_.size() > kToldWindow) told_.pop_front();
    }
  }
  for (const Invalidation& item : items) Stale(item.path);
}

bool FileSystem::ToldSince(const std::string& path, uint64_t since) const {
  if (told_seq_.load(std::memory_order_acquire) == since) return false;
  std::lock_guard lock(told_mu_);
  if (told_.empty() || told_.front().first > since + 1) return true;  // past the window
  for (auto it = told_.rbegin(); it != told_.rend() && it->first > since; ++it) {
    if (it->second == path) return true;
  }
  return false;
}

void FileSystem::SetPathLocked(Inode& inode, const std::string& path) {
  if (inode.path != path) {
    ErasePathLocked(inode);
    inode.path = path;
  }
  by_path_[path] = inode.ino;  // also when another inode had the path since
}

void FileSystem::ErasePathLocked(const Inode& inode) {
  auto it = by_path_.find(inode.path);
  if (it != by_path_.end() && it->second == inode.ino) by_path_.erase(it);
}

KernelInodes FileSystem::KernelInodesOf(const std::string& path) const {
  KernelInodes k;
  std::lock_guard lock(table_mu_);
  if (auto it = by_path_.find(path); it != by_path_.end()) k.ino = it->second;
  if (path != "/") {
    if (auto it = by_path_.find(std::string(ParentPath(path))); it != by_path_.end()) k.parent = it->second;
  }
  return k;
}

}  // namespace bb::fs
