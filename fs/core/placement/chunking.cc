#include "fs/core/placement/chunking.h"

#include "fs/base/status.h"

namespace bb::fs {

std::vector<ChunkSpan> SplitRange(uint64_t offset, uint64_t length, uint64_t chunk_size) {
  std::vector<ChunkSpan> spans;
  (void)ForEachChunk(offset, length, chunk_size, [&](const ChunkSpan& s) {
    spans.push_back(s);
    return Status::Ok();
  });
  return spans;
}

}  // namespace bb::fs
