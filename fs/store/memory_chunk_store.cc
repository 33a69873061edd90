#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "fs/store/chunk_store.h"

namespace bb::fs {
namespace {

class MemoryChunkStore final : public ChunkStore {
 public:
  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, data.size()));
    std::lock_guard lock(mu_);
    std::string& chunk = chunks_[{file_id, index}];
    if (chunk.size() < offset + data.size()) chunk.resize(offset + data.size(), '\0');
    std::memcpy(chunk.data() + offset, data.data(), data.size());
    return Status::Ok();
  }

  Result<size_t> Read(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                      std::span<char> buf) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, buf.size()));
    std::lock_guard lock(mu_);
    auto it = chunks_.find({file_id, index});
    if (it == chunks_.end() || it->second.size() <= offset) return size_t{0};
    size_t n = std::min<size_t>(buf.size(), it->second.size() - offset);
    std::memcpy(buf.data(), it->second.data() + offset, n);
    return n;
  }

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    std::lock_guard lock(mu_);
    std::string& chunk = chunks_[{file_id, index}];
    if (chunk.size() < offset + length) chunk.resize(offset + length, '\0');
    return Status::Ok();
  }

  Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    std::lock_guard lock(mu_);
    auto it = chunks_.find({file_id, index});
    if (it == chunks_.end() || it->second.size() <= offset) return Status::Ok();
    std::string& chunk = it->second;
    std::fill_n(chunk.begin() + static_cast<std::ptrdiff_t>(offset), std::min<uint64_t>(length, chunk.size() - offset),
                '\0');
    return Status::Ok();
  }

  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    std::lock_guard lock(mu_);
    auto it = chunks_.lower_bound({file_id, 0});
    while (it != chunks_.end() && it->first.first == file_id) {
      uint64_t start = it->first.second * chunk_size;
      if (start >= size) {
        it = chunks_.erase(it);
        continue;
      }
      if (start + it->second.size() > size) it->second.resize(size - start);
      ++it;
    }
    return Status::Ok();
  }

  Status Remove(uint64_t file_id) override {
    std::lock_guard lock(mu_);
    // Up to the last chunk index of this file (file_id + 1 would wrap for the largest id).
    chunks_.erase(chunks_.lower_bound({file_id, 0}), chunks_.upper_bound({file_id, UINT64_MAX}));
    return Status::Ok();
  }

  Status Sync(uint64_t) override { return Status::Ok(); }

 private:
  std::mutex mu_;  // guards chunks_
  std::map<std::pair<uint64_t, uint64_t>, std::string> chunks_;
};

}  // namespace

std::unique_ptr<ChunkStore> NewMemoryChunkStore() { return std::make_unique<MemoryChunkStore>(); }

}  // namespace bb::fs
