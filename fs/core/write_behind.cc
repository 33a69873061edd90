#include "fs/core/write_behind.h"

#include <cstring>

#include "fs/core/fan_out.h"
#include "fs/core/inode.h"

namespace bb::fs {

WriteBehind::WriteBehind(uint64_t limit, FanOut* fan_out) : limit_(limit), fan_out_(fan_out), pool_(limit) {}

void WriteBehind::Prefault(uint64_t chunk_size) {
  if (limit_ > 0 && chunk_size > 0) pool_.Prefault(chunk_size, limit_ / chunk_size);
}

void WriteBehind::Send(const std::shared_ptr<Inode>& inode, NodeService* node, uint64_t file_id, uint64_t chunk_size,
                       const ChunkSpan& span, std::span<const char> bytes) {
  const uint64_t n = bytes.size();
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return bytes_ == 0 || bytes_ + n <= limit_; });
    bytes_ += n;
  }
  {
    std::unique_lock lock(inode->mu);
    inode->behind.cv.wait(lock, [&] { return inode->behind.chunks.count(span.index) == 0; });
    inode->behind.chunks.insert(span.index);
  }
  auto copy = std::make_shared<BufferPool::Buffer>(pool_.Get(n));
  std::memcpy(copy->get(), bytes.data(), n);
  fan_out_->Post([this, inode, node, file_id, chunk_size, span, n, copy] {
    Status s = node->WriteChunk(file_id, chunk_size, span.index, span.offset_in_chunk, {copy->get(), n});
    copy->reset();
    Finished(inode, span, file_id, n, s);
  });
}

void WriteBehind::Finished(const std::shared_ptr<Inode>& inode, const ChunkSpan& span, uint64_t file_id, uint64_t bytes,
                           const Status& s) {
  {
    std::lock_guard lock(inode->mu);
    inode->behind.chunks.erase(span.index);
    if (!s.ok() && inode->behind.error.ok()) {
      inode->behind.error =
          s.Annotate("writing chunk " + std::to_string(span.index) + " of file " + std::to_string(file_id) + " behind");
    }
  }
  inode->behind.cv.notify_all();
  {
    std::lock_guard lock(mu_);
    bytes_ -= bytes;
  }
  cv_.notify_all();
}

Status WriteBehind::Wait(Inode& inode, bool take_error) {
  std::unique_lock lock(inode.mu);
  WaitLocked(inode, lock);
  if (!take_error) return Status::Ok();
  return std::exchange(inode.behind.error, Status::Ok());
}

void WriteBehind::WaitLocked(Inode& inode, std::unique_lock<std::mutex>& lock) {
  inode.behind.cv.wait(lock, [&] { return inode.behind.chunks.empty(); });
}

void WriteBehind::WaitChunksLocked(Inode& inode, uint64_t first, uint64_t last, std::unique_lock<std::mutex>& lock) {
  inode.behind.cv.wait(lock, [&] {
    auto it = inode.behind.chunks.lower_bound(first);
    return it == inode.behind.chunks.end() || *it > last;
  });
}

}  // namespace bb::fs
