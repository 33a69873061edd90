// Sizes other nodes see: publishing a file's size to its metadata owner (on its own, or with a
// chunk the owner holds) and how far fallocate reserved past it, and the owner handing out the
// ranges of O_APPEND writes to a shared file.
#include <algorithm>

#include "fs/core/data/write_behind.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"

namespace bb::fs {

Status FileSystem::PublishSize(const std::shared_ptr<Inode>& inode) {
  MetaUpdate u;
  uint64_t writes;
  {
    std::lock_guard lock(inode->mu);
    inode->last_publish_ns = clock_->MonotonicNs();
    if (!inode->size_dirty) return Status::Ok();
    u.grow_to = inode->size;
    u.mtime_ns = inode->dirty_mtime_ns;
    u.ctime_ns = inode->dirty_mtime_ns;
    writes = inode->writes;
  }
  // The size stays unpublished (and so part of what a stat here answers) until its owner has it;
  // then it is published, unless a write began or the file grew meanwhile (a later publish).
  auto published = [&] {
    if (inode->writes == writes && inode->size <= *u.grow_to) inode->size_dirty = false;
  };
  auto [path, unlinked] = NameOf(*inode);
  if (unlinked) {  // the open file's own copy is the only one left
    std::lock_guard lock(inode->mu);
    ApplyUpdate(u, &inode->meta);
    published();
    return Status::Ok();
  }
  const MetaAsk ask = AskMeta(/*change=*/true);
  uint64_t since = ToldSeq();
  auto md = UpdateAttributes(inode, path, u);
  bool told = ToldSince(path, since);
  std::lock_guard lock(inode->mu);
  if (!md) return ChangeUnanswered(*inode, md.error());  // the size stays pending: a later flush tries again
  TakeMeta(*inode, *md, ask, &told);                     // the entry as its owner holds it after the update
  published();
  return Status::Ok();
}

std::shared_ptr<SizeAlong> FileSystem::SizeWith(OpenFile* file, const Metadata& md, uint64_t seq, uint64_t offset,
                                                uint64_t length) {
  if (length == 0 || md.chunk_size == 0) return nullptr;
  uint64_t index = offset / md.chunk_size;
  if ((offset + length - 1) / md.chunk_size != index) return nullptr;
  NodeId target = file->data.For(index);
  if (target == self_) return nullptr;  // the size's own request is the only one then
  std::string path;
  {
    std::lock_guard lock(table_mu_);
    if (file->inode->unlinked) return nullptr;
    path = file->inode->path;
  }
  PathLayout layout = router_->Resolve(path);
  if (layout.replicated || layout.MetaNode(path) != target) return nullptr;
  auto along = std::make_shared<SizeAlong>();
  along->path = path;
  // The write's end only: the owner keeps the larger of its size and that, and a size known here
  // from before may be one another node has truncated since.
  along->update.grow_to = offset + length;
  along->update.mtime_ns = along->update.ctime_ns = clock_->WallNs();
  along->update.if_file_id = md.file_id;
  // An entry made here that waits for its owner goes with it (the owner makes it, with the size).
  along->make = deferred_->Take(path, md.file_id, along->update);
  const MetaAsk ask = AskMeta(/*change=*/true);
  uint64_t since = ToldSeq();
  along->taken = [this, inode = file->inode, path, ask, since, seq, file_id = md.file_id, offset_end = offset + length,
                  made = along->make.has_value()](const Status& sent, std::optional<Metadata> entry) {
    if (made) deferred_->Taken(path, file_id, sent.ok());  // else the next batch sends it
    Changed(path);
    if (!sent.ok()) {
      std::lock_guard lock(inode->mu);
      (void)ChangeUnanswered(*inode, sent);  // the write reports `sent` itself
      return;
    }
    if (!entry) return;  // published the usual way
    bool told = ToldSince(path, since);
    std::lock_guard lock(inode->mu);
    TakeMeta(*inode, *entry, ask, &told);
    if (inode->writes == seq && entry->size >= offset_end) {
      inode->size_dirty = false;
      inode->size_taken_at = seq;
      inode->last_publish_ns = clock_->MonotonicNs();
    }
  };
  return along;
}

Status FileSystem::NoteAllocation(OpenFile* file, uint64_t end) {
  MetaUpdate u;
  u.alloc_to = end;
  const std::shared_ptr<Inode>& inode = file->inode;
  auto [path, unlinked] = NameOf(*inode);
  // Unlinked: its own copy frees the chunks at the last close. Made here and not yet at its
  // owner: the entry waiting here takes it (an inode's number is its file id).
  if (!unlinked && !deferred_->Update(path, inode->ino, u)) {
    BB_RETURN_IF_ERROR(UpdateAttributes(inode, path, u).status());
  }
  std::lock_guard lock(inode->mu);
  ApplyUpdate(u, &inode->meta);
  return Status::Ok();
}

Result<uint64_t> FileSystem::ReserveAppend(const std::shared_ptr<Inode>& inode, uint64_t length) {
  MetaUpdate u;
  {
    std::lock_guard lock(inode->mu);
    if (inode->size_dirty) u.grow_to = inode->size;  // this node's writes not yet published
    u.mtime_ns = u.ctime_ns = clock_->WallNs();
  }
  u.append = length;
  auto [path, unlinked] = NameOf(*inode);
  if (unlinked) {  // no other node can open it any more
    std::lock_guard lock(inode->mu);
    ApplyUpdate(u, &inode->meta);
    inode->size = std::max(inode->size, inode->meta.size);
    return inode->meta.size - length;
  }
  BB_ASSIGN_OR_RETURN(Metadata md, UpdateAttributes(inode, path, u));
  std::lock_guard lock(inode->mu);
  inode->meta = md;
  inode->size = std::max(inode->size, md.size);
  return md.size - length;
}

Status FileSystem::PublishThrough(OpenFile* file) {
  Inode& inode = *file->inode;
  MetaUpdate u;
  uint64_t file_id;
  {
    std::lock_guard lock(inode.mu);
    if (!inode.size_dirty) return Status::Ok();
    u.grow_to = inode.size;
    u.mtime_ns = u.ctime_ns = inode.dirty_mtime_ns;
    file_id = inode.meta.file_id;
  }
  // Made here and not yet at its owner: the entry waiting here takes the size, no request.
  if (!deferred_->Update(file->path, file_id, u)) return PublishSize(file->inode);
  std::lock_guard lock(inode.mu);
  ApplyUpdate(u, &inode.meta);
  if (inode.size <= *u.grow_to) inode.size_dirty = false;  // else a later write publishes it
  return Status::Ok();
}

}  // namespace bb::fs
