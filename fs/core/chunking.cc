#include "fs/core/chunking.h"

namespace bb::fs {

std::vector<ChunkSpan> SplitRange(uint64_t offset, uint64_t length, uint64_t chunk_size) {
  std::vector<ChunkSpan> spans;
  if (length == 0) return spans;
  spans.reserve(static_cast<size_t>((offset % chunk_size + length) / chunk_size + 1));
  uint64_t done = 0;
  while (done < length) {
    uint64_t pos = offset + done;
    uint64_t in_chunk = pos % chunk_size;
    uint64_t n = chunk_size - in_chunk;
    if (n > length - done) n = length - done;
    spans.push_back({pos / chunk_size, in_chunk, n, done});
    done += n;
  }
  return spans;
}

}  // namespace bb::fs
