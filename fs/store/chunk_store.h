// ChunkStore: the file data one node holds, as fixed-size chunks named by (file id, index).
//
// On-disk layout of the real store (OpenPosixChunkStore): one file per chunk at
//   <root>/chunks/<file id, 16 lowercase hex digits>/<chunk index, decimal>
// holding the bytes of that chunk from its start; a chunk file may be shorter than the chunk
// size, and a missing chunk file or a short one reads as zeros (holes). Chunk files are
// created on first write. Because chunks are named by the stable file id and never by path, a
// rename moves no data.
//
// Thread-safety: every method may be called concurrently, also for the same chunk (the
// result of overlapping concurrent writes to the same bytes is one of them, as with pwrite).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "fs/base/status.h"

namespace bb::fs {

class ChunkStore {
 public:
  virtual ~ChunkStore() = default;

  // Writes `data` at byte `offset` of chunk (file_id, index), creating it when missing.
  // ENOSPC when the backing store is full (nothing already stored is harmed); EIO otherwise.
  virtual Status Write(uint64_t file_id, uint64_t index, uint64_t offset,
                       std::span<const char> data) = 0;

  // Reads up to buf.size() bytes at `offset` of the chunk. Returns the number of bytes that the
  // chunk file holds there (0 for a missing chunk); the caller treats the rest as a hole.
  virtual Result<size_t> Read(uint64_t file_id, uint64_t index, uint64_t offset,
                              std::span<char> buf) = 0;

  // Reserves backing space for [offset, offset+length) of the chunk (fallocate). ENOSPC when
  // the space is not there.
  virtual Status Allocate(uint64_t file_id, uint64_t index, uint64_t offset, uint64_t length) = 0;

  // Drops all data of the file at or beyond byte `size`, for a file of `chunk_size` chunks:
  // removes the chunks that start at or after `size` and shortens the one that spans it.
  virtual Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) = 0;

  // Removes every chunk of the file. OK when it has none. The space may be reclaimed in the
  // background after this returns; a write that finds the store full waits for that first.
  virtual Status Remove(uint64_t file_id) = 0;

  // Makes every chunk of the file written so far durable.
  virtual Status Sync(uint64_t file_id) = 0;
};

// Opens the chunk store under `root`/chunks, creating the folder. EIO/EACCES when it cannot.
// `reserve_bytes`: writes fail with ENOSPC once the backing filesystem would have less free
// space than this, so the metadata database beside the chunks always has room to record what
// was stored. `max_open`: chunk files kept open (random I/O over large files touches many
// chunks; each miss costs an open and a close).
Result<std::unique_ptr<ChunkStore>> OpenPosixChunkStore(const std::string& root,
                                                        uint64_t reserve_bytes,
                                                        size_t max_open = 1024);

std::unique_ptr<ChunkStore> NewMemoryChunkStore();

}  // namespace bb::fs
