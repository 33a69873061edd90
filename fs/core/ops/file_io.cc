// File operations of the core: open/create, read, write, sync, close; size publication.
#include <fcntl.h>
#include <linux/falloc.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "fs/core/data/chunk_pieces.h"
#include "fs/core/data/fan_out.h"
#include "fs/core/data/write_behind.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/chunking.h"
#include "fs/core/placement/path.h"

namespace bb::fs {

Result<std::pair<Entry, OpenFile*>> FileSystem::Create(uint64_t parent, const std::string& name, mode_t mode, int flags,
                                                       const Caller& c) {
  Count(FsOp::kCreate);
  BB_ASSIGN_OR_RETURN(std::string path, ChildPath(parent, name));
  PathLayout layout = router_->Resolve(path);
  // An id that suits the mode: about one in `nodes` where it keeps the first chunk with the entry
  // (that none of 16 * nodes tries suits has a chance below e^-16).
  BB_ASSIGN_OR_RETURN(
      uint64_t id, ids_->NextWhere([&](uint64_t id) { return layout.SuitsNewFile(id, path); }, 16 * layout.view.nodes));
  bool small = false;
  bool deferred = false;
  auto created = CreateEntryAt(path, layout, NewMeta(parent, FileType::kRegular, mode, c, id), &deferred);
  Entry entry;
  if (created) {
    entry = *created;
    bool expected = c.pid > 0 && streams_.Created(c.pid, ParentPath(path), clock_->MonotonicNs());
    // Made here on a reserved name: its writes must go through, the entry being this node's to
    // publish (and to send with the first write).
    small = (options_.small_file_streams && expected) || deferred;
  } else {
    if (created.error().code() != EEXIST || (flags & O_EXCL)) return created.error();
    // Lost a race with another creator (or the kernel's lookup was stale): open what is there.
    BB_ASSIGN_OR_RETURN(entry, Lookup(parent, name));
    if (entry.md.type == FileType::kDirectory) {
      Forget(entry.ino, 1);
      return Status(EISDIR, name);
    }
    if (flags & O_TRUNC) {
      SetAttrRequest req;
      req.size = 0;
      auto truncated = SetAttr(entry.ino, req, nullptr);
      if (!truncated) {
        Forget(entry.ino, 1);
        return truncated.error();
      }
      entry.md = truncated->md;
    }
  }
  // The entry was just created or read: open it without reading it again.
  auto inode = FindInode(entry.ino);
  if (!inode) return inode.error();
  OpenFile* file = OpenWith(std::move(*inode), entry.md, flags, c.pid);
  file->made = created.has_value();
  file->write_through = file->made && small;
  if (file->profiled) profiles_.Opened(file->profiled, file->path, entry.md.file_id, c.pid, clock_->WallNs());
  return std::make_pair(entry, file);
}

Result<OpenFile*> FileSystem::Open(uint64_t ino, int flags, const Caller& c) {
  Count(FsOp::kOpen);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, CachedMeta(inode));
  if (md.type == FileType::kDirectory) return Status(EISDIR, "open of a directory as a file");
  if (flags & O_TRUNC && (flags & O_ACCMODE) != O_RDONLY && md.size > 0) {
    SetAttrRequest req;
    req.size = 0;
    BB_ASSIGN_OR_RETURN(Entry e, SetAttr(ino, req, nullptr));
    md = e.md;
  }
  OpenFile* file = OpenWith(std::move(inode), md, flags, c.pid);
  if (file->profiled) profiles_.Opened(file->profiled, file->path, md.file_id, c.pid, clock_->WallNs());
  return file;
}

OpenFile* FileSystem::OpenWith(std::shared_ptr<Inode> inode, const Metadata& md, int flags, pid_t pid) {
  auto* file = new OpenFile;
  {
    std::lock_guard lock(table_mu_);
    inode->open_count++;
    file->path = inode->path;
  }
  file->node_private = inode->node_private.load(std::memory_order_relaxed);
  file->data = router_->Resolve(file->path).Data(md.file_id, md.data_location);
  file->profiled = profiles_.For(Profiled(file->path));
  file->pid = pid;
  {
    std::lock_guard lock(inode->mu);
    inode->meta = md;
    if (!inode->size_dirty) inode->size = md.size;
  }
  file->inode = std::move(inode);
  file->flags = flags;
  return file;
}

Result<size_t> FileSystem::Read(OpenFile* file, uint64_t offset, std::span<char> buf) {
  Count(FsOp::kRead);
  Inode& inode = *file->inode;
  Metadata md;
  uint64_t size;
  {
    std::unique_lock lock(inode.mu);
    // See this node's writes of the range (a file's other writes behind keep going).
    uint64_t chunk = inode.meta.chunk_size;
    if (chunk == 0 || buf.empty()) {
      WriteBehind::WaitLocked(inode.behind, lock);
    } else {
      WriteBehind::WaitChunksLocked(inode.behind, offset / chunk, (offset + buf.size() - 1) / chunk, lock);
    }
    md = inode.meta;
    size = inode.size_dirty ? std::max(inode.size, md.size) : md.size;
  }
  if (offset + buf.size() > size) {
    // Another node may have published a larger size since this file was opened (it would
    // have told this node, which then reads it again).
    BB_ASSIGN_OR_RETURN(md, CachedMeta(file->inode));
    size = md.size;
  }
  if (offset >= size) return size_t{0};
  size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - offset));
  ChunkPieces pieces(fan_out_.get(), offset, want, md.chunk_size);
  BB_RETURN_IF_ERROR(ForEachChunk(offset, want, md.chunk_size, [&](const ChunkSpan& s) -> Status {
    NodeService* node = DataService(file->data.For(s.index), s.length, 0);
    return pieces.Add([&md, buf, node, s]() -> Status {
      std::span<char> piece = buf.subspan(s.buf_offset, s.length);
      BB_ASSIGN_OR_RETURN(size_t got, node->ReadChunk(md.file_id, md.chunk_size, s.index, s.offset_in_chunk, piece));
      if (got < piece.size()) std::memset(piece.data() + got, 0, piece.size() - got);  // hole
      return Status::Ok();
    });
  }));
  BB_RETURN_IF_ERROR(pieces.Run());
  if (file->profiled) {
    profiles_.Accessed(file->profiled, md.file_id, false, offset, want, false, file->pid, clock_->WallNs());
  }
  return want;
}

Result<FileSystem::WriteStart> FileSystem::StartWrite(OpenFile* file, uint64_t offset, uint64_t length, bool behind,
                                                      bool shared_append) {
  Inode& inode = *file->inode;
  std::unique_lock lock(inode.mu);
  // A write behind that failed is reported by the next write (as by flush and fsync).
  if (!inode.behind.error.ok()) return std::exchange(inode.behind.error, Status::Ok());
  // A write that waits for its chunks must not overtake writes behind of the same chunks.
  if (!behind) WriteBehind::WaitLocked(inode.behind, lock);
  WriteStart start{inode.meta, offset, false, ++inode.writes};
  if ((file->flags & O_APPEND) && !shared_append) {  // reserved here: this node's appenders never overlap
    start.offset = std::max(inode.size, start.md.size);
    inode.size = start.offset + length;
    inode.size_dirty = true;
  }
  start.published = !inode.size_dirty && inode.behind.chunks.empty() && !file->node_private && !shared_append;
  return start;
}

Result<size_t> FileSystem::Write(OpenFile* file, uint64_t offset, std::span<const char> data) {
  Count(FsOp::kWrite);
  Inode& inode = *file->inode;
  // O_SYNC includes the O_DSYNC bit. An append to a file other nodes share is written through:
  // its range is published when it is handed out, so its data must be there before the reply.
  const bool shared_append = (file->flags & O_APPEND) && !file->node_private;
  const bool behind =
      behind_->enabled() && !(file->flags & (O_DSYNC | O_DIRECT)) && !shared_append && !file->write_through;
  BB_ASSIGN_OR_RETURN(WriteStart start, StartWrite(file, offset, data.size(), behind, shared_append));
  const Metadata& md = start.md;
  const uint64_t seq = start.seq;
  offset = start.offset;
  if (file->made) NoteWriteOfMade(file, offset, data.size(), md.chunk_size);
  if (shared_append) {
    BB_ASSIGN_OR_RETURN(offset, ReserveAppend(file->inode, data.size()));
  }
  // The size goes with the chunk when it can (only for a write within one chunk).
  std::shared_ptr<SizeAlong> along = start.published ? SizeWith(file, md, seq, offset, data.size()) : nullptr;
  TouchedNodes touched;
  ChunkPieces pieces(fan_out_.get(), offset, data.size(), md.chunk_size);
  BB_RETURN_IF_ERROR(ForEachChunk(offset, data.size(), md.chunk_size, [&](const ChunkSpan& s) -> Status {
    NodeId target = file->data.For(s.index);
    touched.Add(target);
    NodeService* node = DataService(target, 0, s.length);
    std::span<const char> piece = data.subspan(s.buf_offset, s.length);
    if (behind && target != self_) {
      behind_->Send(BehindOf(file->inode), node, md.file_id, md.chunk_size, s, piece, along);
      return Status::Ok();
    }
    if (along) return pieces.Add([&] { return WriteWithSize(node, md.file_id, md.chunk_size, s, piece, *along); });
    return pieces.Add([this, &md, node, s, piece] {
      return WriteFreeing(
          [&] { return node->WriteChunk(md.file_id, md.chunk_size, s.index, s.offset_in_chunk, piece); });
    });
  }));
  BB_RETURN_IF_ERROR(pieces.Run());
  int64_t now = clock_->WallNs();
  bool publish;
  {
    std::lock_guard lock(inode.mu);
    // With nothing unpublished before, this write's end alone (Inode::size: stale otherwise).
    inode.size = inode.size_dirty ? std::max(inode.size, offset + data.size()) : offset + data.size();
    if (inode.size_taken_at != seq) {  // its chunk's node did not take (or has yet to take) the size
      inode.size_dirty = true;
      inode.dirty_mtime_ns = now;
    }
    touched.InsertInto(&inode.written_nodes);
    // A published size never covers data still on its way: while writes behind are, the size
    // waits for a later write, flush or fsync.
    publish =
        clock_->MonotonicNs() - inode.last_publish_ns > options_.publish_interval_ns && inode.behind.chunks.empty();
  }
  if (file->profiled) {
    profiles_.Accessed(file->profiled, md.file_id, true, offset, data.size(), (file->flags & O_APPEND) != 0, file->pid,
                       now);
  }
  BB_RETURN_IF_ERROR(file->write_through ? PublishThrough(file) : publish ? PublishSize(file->inode) : Status::Ok());
  return data.size();
}

void FileSystem::NoteWriteOfMade(OpenFile* file, uint64_t offset, uint64_t length, uint64_t chunk_size) {
  if (file->large.load(std::memory_order_relaxed)) return;
  bool large = offset + length > chunk_size ||
               file->writes.fetch_add(1, std::memory_order_relaxed) + 1 > CreateStreams::kMaxSmallWrites;
  if (large && !file->large.exchange(true)) streams_.Large(file->pid, ParentPath(file->path), clock_->MonotonicNs());
}

Status FileSystem::Flush(OpenFile* file) {
  Count(FsOp::kFlush);
  Status behind = WriteBehind::Wait(file->inode->behind, true);
  Status published = PublishSize(file->inode);
  return behind.ok() ? published : behind;
}

Status FileSystem::Fsync(OpenFile* file) {
  Count(FsOp::kFsync);
  if (file->profiled) profiles_.Synced(file->profiled, file->inode->ino, clock_->WallNs());
  BB_RETURN_IF_ERROR(WriteBehind::Wait(file->inode->behind, true));
  BB_RETURN_IF_ERROR(deferred_->SendNow(file->path));  // an entry made here: durable at its owner too
  BB_RETURN_IF_ERROR(PublishSize(file->inode));
  Inode& inode = *file->inode;
  std::set<NodeId> nodes;
  uint64_t file_id;
  {
    std::lock_guard lock(inode.mu);
    nodes.swap(inode.written_nodes);
    file_id = inode.meta.file_id;
  }
  std::string path;
  {
    std::lock_guard lock(table_mu_);
    path = inode.path;
  }
  PathLayout layout = router_->Resolve(path);
  if (!layout.replicated) nodes.insert(layout.MetaNode(path));
  for (NodeId n : nodes) {
    Status s = nodes_(n)->Sync(file_id);
    if (!s.ok()) {
      std::lock_guard lock(inode.mu);
      inode.written_nodes.insert(nodes.begin(), nodes.end());
      return s;
    }
  }
  return Status::Ok();
}

Status FileSystem::Release(OpenFile* file) {
  Count(FsOp::kRelease);
  std::unique_ptr<OpenFile> owned(file);
  Status unlocked = ReleaseOpenLocks(file);
  Status behind = WriteBehind::Wait(file->inode->behind, true);
  Status published = PublishSize(file->inode);
  if (!behind.ok()) published = behind;
  if (published.ok()) published = unlocked;
  Inode& inode = *file->inode;
  bool free_data = false;
  {
    std::lock_guard lock(table_mu_);
    inode.open_count--;
    if (inode.open_count == 0) {
      free_data = inode.unlinked;
      if (inode.nlookup == 0) {
        ErasePathLocked(inode);
        inodes_.erase(inode.ino);
      }
    }
  }
  if (free_data) {
    Metadata md;
    {
      std::lock_guard lock(inode.mu);
      md = inode.meta;
    }
    Status freed = RemoveChunksOf(md, md.size, file->path);
    {
      std::lock_guard lock(table_mu_);
      freed_.fetch_add(1, std::memory_order_release);
    }
    freed_cv_.notify_all();
    BB_RETURN_IF_ERROR(freed);
  }
  return published;
}

}  // namespace bb::fs
