// fallocate: reserving a file's chunks (plain and FALLOC_FL_KEEP_SIZE), punching holes
// (FALLOC_FL_PUNCH_HOLE) and zeroing ranges (FALLOC_FL_ZERO_RANGE), each chunk on its node.
#include <fcntl.h>
#include <linux/falloc.h>

#include <algorithm>

#include "fs/core/data/chunk_pieces.h"
#include "fs/core/data/write_behind.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/chunking.h"

namespace bb::fs {

Status FileSystem::Fallocate(OpenFile* file, int mode, uint64_t offset, uint64_t length) {
  Count(FsOp::kFallocate);
  if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) {
    return Status(EOPNOTSUPP, "fallocate: only KEEP_SIZE, PUNCH_HOLE and ZERO_RANGE are supported");
  }
  bool punch = (mode & FALLOC_FL_PUNCH_HOLE) != 0;
  bool zero = (mode & FALLOC_FL_ZERO_RANGE) != 0;
  if (punch && (zero || !(mode & FALLOC_FL_KEEP_SIZE))) {
    return Status(EOPNOTSUPP, "fallocate: PUNCH_HOLE goes with KEEP_SIZE alone");
  }
  Inode& inode = *file->inode;
  // Writes still on their way to other nodes land before the range is zeroed, not after.
  if (punch || zero) BB_RETURN_IF_ERROR(WriteBehind::Wait(inode.behind, false));
  Metadata md;
  uint64_t data_end;
  {
    std::lock_guard lock(inode.mu);
    md = inode.meta;
    data_end = std::max({inode.size, inode.meta.size, inode.meta.alloc_end});
  }
  // A hole past everything the file holds has nothing to free.
  uint64_t span = !punch ? length : offset < data_end ? std::min(length, data_end - offset) : 0;
  TouchedNodes touched;
  // The chunks are allocated at the same time, as a write's are: one after another, preparing a
  // large file (fio lays out every file it writes) took a round trip per chunk.
  ChunkPieces pieces(fan_out_.get(), offset, span, md.chunk_size);
  Status done = ForEachChunk(offset, span, md.chunk_size, [&](const ChunkSpan& s) {
    NodeId target = file->data.For(s.index);
    touched.Add(target);
    NodeService* node = DataService(target, 0, 0);
    return pieces.Add([&md, node, s, punch, zero] {
      if (punch || zero) return node->ZeroChunk(md.file_id, md.chunk_size, s.index, s.offset_in_chunk, s.length, zero);
      return node->AllocateChunk(md.file_id, md.chunk_size, s.index, s.offset_in_chunk, s.length);
    });
  });
  if (done.ok()) done = pieces.Run();
  bool past_size;
  {
    std::lock_guard lock(inode.mu);
    touched.InsertInto(&inode.written_nodes);
    past_size = !punch && offset + length > std::max({inode.size, inode.meta.size, inode.meta.alloc_end});
    uint64_t grow_to = done.ok() && !(mode & FALLOC_FL_KEEP_SIZE) ? offset + length : 0;
    if (grow_to > 0 || punch || zero) {  // the owner keeps the larger size (Inode::size)
      inode.size = inode.size_dirty ? std::max(inode.size, grow_to) : grow_to;
      inode.size_dirty = true;
      inode.dirty_mtime_ns = clock_->WallNs();
      past_size = past_size && grow_to == 0;
    }
  }
  // Chunks past the size (KEEP_SIZE, or a call that failed halfway): the entry says how far they
  // may reach, so that removal and truncation find them.
  Status noted = past_size ? NoteAllocation(file, offset + length) : Status::Ok();
  if (!done.ok() || !noted.ok()) return done.ok() ? noted : done;
  return PublishSize(file->inode);
}

}  // namespace bb::fs
