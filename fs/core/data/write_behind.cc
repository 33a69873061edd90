#include "fs/core/data/write_behind.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "fs/core/data/fan_out.h"

namespace bb::fs {

uint64_t AddExtent(Extents& extents, uint64_t offset, std::span<const char> data) {
  if (data.empty()) return 0;
  uint64_t lo = offset, hi = offset + data.size();
  // The ranges it overlaps or touches: from the last one starting at or before `offset` (if it
  // reaches it) to the last one starting at or before `hi`.
  auto first = extents.upper_bound(offset);
  if (first != extents.begin()) {
    auto before = std::prev(first);
    if (before->first + before->second.size() >= offset) first = before;
  }
  auto last = extents.upper_bound(hi);
  uint64_t held = 0;
  for (auto it = first; it != last; ++it) {
    lo = std::min(lo, it->first);
    hi = std::max<uint64_t>(hi, it->first + it->second.size());
    held += it->second.size();
  }
  if (first != last && std::next(first) == last && first->first == lo) {
    // One range, grown at its end or written inside: in place (amortized, so a run of small
    // writes into one chunk costs its bytes once, not once per write).
    std::string& held_bytes = first->second;
    held_bytes.resize(hi - lo);
    std::memcpy(held_bytes.data() + (offset - lo), data.data(), data.size());
    return (hi - lo) - held;
  }
  std::string merged(hi - lo, '\0');
  for (auto it = first; it != last; ++it)
    std::memcpy(merged.data() + (it->first - lo), it->second.data(), it->second.size());
  std::memcpy(merged.data() + (offset - lo), data.data(), data.size());
  extents.erase(first, last);
  extents.emplace(lo, std::move(merged));
  return (hi - lo) - held;
}

Status WriteWithSize(NodeService* node, uint64_t file_id, uint64_t chunk_size, const ChunkSpan& span,
                     std::span<const char> bytes, const SizeAlong& size) {
  auto r = node->WriteChunkAndUpdate(file_id, chunk_size, span.index, span.offset_in_chunk, bytes, size.path,
                                     size.update, size.make);
  Status sent = r.status();
  size.taken(sent, r ? std::move(*r) : std::nullopt);
  return sent;
}

WriteBehind::WriteBehind(uint64_t limit, FanOut* fan_out, Retry retry)
    : limit_(limit), fan_out_(fan_out), retry_(std::move(retry)), pool_(limit) {}

void WriteBehind::Prefault(uint64_t chunk_size) {
  if (limit_ > 0 && chunk_size > 0) pool_.Prefault(chunk_size, limit_ / chunk_size);
}

void WriteBehind::Send(const std::shared_ptr<BehindState>& file, NodeService* node, uint64_t file_id,
                       uint64_t chunk_size, const ChunkSpan& span, std::span<const char> bytes,
                       std::shared_ptr<SizeAlong> size) {
  const uint64_t n = bytes.size();
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return bytes_ == 0 || bytes_ + n <= limit_; });
    bytes_ += n;
  }
  {
    std::lock_guard lock(*file->guard);
    if (file->chunks.count(span.index) != 0) {
      // The chunk's last write is still on its way: this one goes with the next.
      BehindState::Gathered& g = file->gathered[span.index];
      g.node = node;
      g.file_id = file_id;
      g.chunk_size = chunk_size;
      uint64_t grown = AddExtent(g.extents, span.offset_in_chunk, bytes);
      g.bytes += grown;
      if (grown < n) Release(n - grown);  // bytes gathered twice are held once
      return;
    }
    file->chunks.insert(span.index);
  }
  auto copy = std::make_shared<BufferPool::Buffer>(pool_.Get(n));
  std::memcpy(copy->get(), bytes.data(), n);
  fan_out_->Post([this, file, node, file_id, chunk_size, span, n, copy, size] {
    std::span<const char> bytes(copy->get(), n);
    Status s = size ? WriteWithSize(node, file_id, chunk_size, span, bytes, *size) : WriteChunk([&] {
      return node->WriteChunk(file_id, chunk_size, span.index, span.offset_in_chunk, bytes);
    });
    copy->reset();
    Finished(file, span.index, file_id, n, s);
  });
}

void WriteBehind::Post(const std::shared_ptr<BehindState>& file, NodeService* node, uint64_t file_id,
                       uint64_t chunk_size, uint64_t index, Extents extents, uint64_t bytes) {
  auto shared = std::make_shared<Extents>(std::move(extents));
  fan_out_->Post([this, file, node, file_id, chunk_size, index, bytes, shared] {
    // One request for every range gathered (ranks' records interleaved in one chunk do not touch).
    std::vector<ChunkRange> ranges;
    ranges.reserve(shared->size());
    for (const auto& [offset, data] : *shared) ranges.push_back({offset, {data.data(), data.size()}});
    Status s = WriteChunk([&] { return node->WriteChunkRanges(file_id, chunk_size, index, ranges); });
    shared->clear();
    Finished(file, index, file_id, bytes, s);
  });
}

void WriteBehind::Finished(const std::shared_ptr<BehindState>& file, uint64_t index, uint64_t file_id, uint64_t bytes,
                           const Status& s) {
  std::optional<BehindState::Gathered> next;
  {
    std::lock_guard lock(*file->guard);
    if (!s.ok() && file->error.ok()) {
      file->error =
          s.Annotate("writing chunk " + std::to_string(index) + " of file " + std::to_string(file_id) + " behind");
    }
    auto g = file->gathered.find(index);
    if (g != file->gathered.end()) {
      next = std::move(g->second);  // the chunk stays on its way
      file->gathered.erase(g);
    } else {
      file->chunks.erase(index);
    }
  }
  if (next) {
    Post(file, next->node, next->file_id, next->chunk_size, index, std::move(next->extents), next->bytes);
  } else {
    file->cv.notify_all();
  }
  Release(bytes);
}

void WriteBehind::Release(uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    bytes_ -= bytes;
  }
  cv_.notify_all();
}

Status WriteBehind::Wait(BehindState& file, bool take_error) {
  std::unique_lock lock(*file.guard);
  WaitLocked(file, lock);
  if (!take_error) return Status::Ok();
  return std::exchange(file.error, Status::Ok());
}

void WriteBehind::WaitLocked(BehindState& file, std::unique_lock<std::mutex>& lock) {
  file.cv.wait(lock, [&] { return file.chunks.empty(); });
}

void WriteBehind::WaitChunksLocked(BehindState& file, uint64_t first, uint64_t last,
                                   std::unique_lock<std::mutex>& lock) {
  file.cv.wait(lock, [&] {
    auto it = file.chunks.lower_bound(first);
    return it == file.chunks.end() || *it > last;
  });
}

}  // namespace bb::fs
