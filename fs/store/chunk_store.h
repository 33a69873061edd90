// ChunkStore: the file data one node holds, as fixed-size chunks named by (file id, index).
//
// On-disk layout of the real store (OpenPosixChunkStore): the chunks a node holds of one file
// live in a few sparse "segment" files,
//   <root>/chunks/<file id, 16 lowercase hex digits>/<segment, decimal 0..kChunkSegments-1>
// chunk `index` in segment index % kChunkSegments at byte (index / kChunkSegments) * chunk size.
// A missing segment, a hole and the part past a segment's end read as zeros. Segments are
// created on first write; <root>/chunks/LAYOUT names this layout, and a store refuses a folder
// of another one. Because chunks are named by the stable file id and never by path, a rename
// moves no data.
//
// Small files (OpenPosixChunkStore with `small_in` a MetaStore, as the daemon opens it): chunk 0
// of a file while it holds at most kInlineChunkMax bytes is one value of the node's MetaStore,
// key "Sinline/" + the file id (8 bytes, big-endian), and no folder or segment exists for it. A
// write past kInlineChunkMax, or an allocation, moves it to its segment. LAYOUT then says
// "segments 8, small in meta": an older daemon, which would not see those values, refuses it.
//
// Why: a small file's chunk in segments costs the backing file system a folder, a file and their
// removal (50-1,100 us to make and 110-150 us to remove a 3,901-byte one on this project's ext4
// guest, against 15-20 and 5-8 us as a LevelDB value: bench/results/small_chunks.md). Only up to
// 8 KiB: compaction rewrites a value several times, a cost that grows with its size.
//
// Why segments and not a file per chunk: creating a chunk file costs the backing file system an
// inode, which for 512 KiB chunks dominated the CPU of a node taking writes (see
// bench/results/history.md). Why not one file per file: a buffered write holds its file's inode lock, so
// writes to different chunks of one file on one node would take turns; with kChunkSegments
// files, consecutive chunks land in different files.
//
// Thread-safety: every method may be called concurrently, also for the same chunk (the
// result of overlapping concurrent writes to the same bytes is one of them, as with pwrite).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "fs/base/status.h"

namespace bb::fs {

inline constexpr uint64_t kChunkSegments = 8;
// The most bytes of chunk 0 kept as a MetaStore value (see above).
inline constexpr uint64_t kInlineChunkMax = 8192;

class MetaStore;

// Where chunk `index` lives in the posix layout: its segment, and the byte of that segment
// where the chunk starts.
inline uint64_t ChunkSegment(uint64_t index) { return index % kChunkSegments; }
inline uint64_t SegmentOffset(uint64_t index, uint64_t chunk_size) { return index / kChunkSegments * chunk_size; }

// How many leading bytes of segment `segment` hold data of a file cut to `size` bytes: every
// chunk of the segment that starts before `size`, the one spanning it only up to `size`.
inline uint64_t SegmentBytesBelow(uint64_t size, uint64_t chunk_size, uint64_t segment) {
  uint64_t spanning = size / chunk_size;  // the chunk that `size` falls in
  if (ChunkSegment(spanning) == segment) return SegmentOffset(spanning, chunk_size) + size % chunk_size;
  uint64_t whole = spanning > segment ? (spanning - segment + kChunkSegments - 1) / kChunkSegments : 0;
  return whole * chunk_size;
}

// Whether [offset, offset + length) lies within a chunk of `chunk_size` bytes (never for 0).
inline bool FitsChunk(uint64_t chunk_size, uint64_t offset, uint64_t length) {
  return chunk_size > 0 && offset <= chunk_size && length <= chunk_size - offset;
}

// EINVAL unless the range fits its chunk (FitsChunk).
inline Status CheckChunkRange(uint64_t chunk_size, uint64_t offset, uint64_t length) {
  if (!FitsChunk(chunk_size, offset, length)) {
    return Status(EINVAL, "chunk range [" + std::to_string(offset) + ", +" + std::to_string(length) +
                              ") does not fit a chunk of " + std::to_string(chunk_size) + " bytes");
  }
  return Status::Ok();
}

class ChunkStore {
 public:
  virtual ~ChunkStore() = default;

  // `chunk_size` is the file's chunk size (the same in every call for one file), and
  // offset + length stays within it (EINVAL otherwise).

  // Writes `data` at byte `offset` of chunk (file_id, index), creating it when missing.
  // ENOSPC when the backing store is full (nothing already stored is harmed); EIO otherwise.
  virtual Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       std::span<const char> data) = 0;

  // Reads up to buf.size() bytes at `offset` of the chunk. Returns how many bytes it filled;
  // the caller treats the rest as a hole (zeros). A missing chunk gives 0 or zeros.
  virtual Result<size_t> Read(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                              std::span<char> buf) = 0;

  // Reserves backing space for [offset, offset+length) of the chunk (fallocate). ENOSPC when
  // the space is not there.
  virtual Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) = 0;

  // Makes [offset, offset+length) of the chunk read as zeros, giving its space back where the
  // backing store can (a hole); nothing past what the chunk holds is allocated. OK when the chunk
  // is missing.
  virtual Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) = 0;

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
// chunks; each miss costs an open and a close). `small_in` (may be null; must outlive the
// store): the MetaStore that keeps small files' chunk 0 (see above); a folder of the plain
// layout is taken over (it holds no such values), one of the other layout is refused either way.
Result<std::unique_ptr<ChunkStore>> OpenPosixChunkStore(const std::string& root, uint64_t reserve_bytes,
                                                        size_t max_open = 1024, MetaStore* small_in = nullptr);

// Whether `bytes` more fit on the backing store: OK, or ENOSPC (after waiting for pending
// removals, as the posix store's own writes do).
using SpaceCheck = std::function<Status(uint64_t bytes)>;

// The same over any store: chunk 0 of small files in `kv` (which must outlive it), the rest in
// `large`. `room` is asked before each value is written, for all of its bytes (each write of a
// value puts all of it in the MetaStore's log); empty: no check. OpenPosixChunkStore passes its
// own check, so small and large writes keep the same reserve and wait for the same removals.
std::unique_ptr<ChunkStore> NewInlineChunkStore(std::unique_ptr<ChunkStore> large, MetaStore* kv, SpaceCheck room);

std::unique_ptr<ChunkStore> NewMemoryChunkStore();

}  // namespace bb::fs
