// Chunk arithmetic: how a byte range of a file maps onto fixed-size chunks.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::fs {

inline constexpr uint32_t kDefaultChunkSize = 512 * 1024;

struct ChunkSpan {
  uint64_t index;            // chunk number
  uint64_t offset_in_chunk;  // first byte inside the chunk
  uint64_t length;           // bytes inside this chunk
  uint64_t buf_offset;       // where these bytes sit in the caller's buffer

  bool operator==(const ChunkSpan&) const = default;
};

// Calls `fn(const ChunkSpan&)` for each chunk covering [offset, offset + length), in order,
// without allocating (this is on every read and write). `fn` returns a Status; the first that
// is not OK stops the walk and is returned. REQUIRES: chunk_size > 0.
template <typename Fn>
auto ForEachChunk(uint64_t offset, uint64_t length, uint64_t chunk_size, Fn&& fn) {
  uint64_t done = 0;
  while (done < length) {
    uint64_t pos = offset + done;
    uint64_t in_chunk = pos % chunk_size;
    uint64_t n = chunk_size - in_chunk;
    if (n > length - done) n = length - done;
    auto status = fn(ChunkSpan{pos / chunk_size, in_chunk, n, done});
    if (!status.ok()) return status;
    done += n;
  }
  return decltype(fn(ChunkSpan{})){};
}

// The chunks covering [offset, offset + length), in order. Empty for length 0.
// REQUIRES: chunk_size > 0.
std::vector<ChunkSpan> SplitRange(uint64_t offset, uint64_t length, uint64_t chunk_size);

// Number of chunks a file of `size` bytes spans (0 for an empty file).
inline uint64_t ChunkCount(uint64_t size, uint64_t chunk_size) { return (size + chunk_size - 1) / chunk_size; }

// The one rule for chunk sizes (daemon configuration, mode files, workspace records, the wire):
// a power of two between 4 KiB and 1 GiB.
inline constexpr const char* kChunkSizeRule = "a power of two from 4KiB to 1GiB";
inline bool IsValidChunkSize(uint64_t chunk_size) {
  return chunk_size >= 4096 && chunk_size <= (1ULL << 30) && (chunk_size & (chunk_size - 1)) == 0;
}
// EINVAL "chunk size N is not <rule>" unless IsValidChunkSize.
inline Status CheckChunkSize(uint64_t chunk_size) {
  if (IsValidChunkSize(chunk_size)) return Status::Ok();
  return Status(EINVAL, "chunk size " + std::to_string(chunk_size) + " is not " + kChunkSizeRule);
}

}  // namespace bb::fs
