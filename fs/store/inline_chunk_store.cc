// NewInlineChunkStore: the first chunk of small files as one value in the node's MetaStore, the
// rest in another ChunkStore (chunk_store.h says when and why).
//
// Chunk 0 of a file lives in exactly one place: its value "Sinline/<file id>" while that key
// exists, else the large store. Every change to chunk 0 (write, allocate, truncate, remove) holds
// its file's stripe lock across the value's read-modify-write or its move to the large store.
// Reads take no lock: a value moves by being written to the large store before its key goes, so
// a reader finds the bytes in one place or the other.
#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <optional>

#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

constexpr std::string_view kInlinePrefix = "Sinline/";
constexpr size_t kStripes = 64;

std::string InlineKey(uint64_t file_id) {
  std::string key(kInlinePrefix);
  for (int i = 7; i >= 0; --i) key.push_back(static_cast<char>((file_id >> (8 * i)) & 0xff));
  return key;
}

class InlineChunkStore final : public ChunkStore {
 public:
  InlineChunkStore(std::unique_ptr<ChunkStore> large, MetaStore* kv, SpaceCheck room)
      : large_(std::move(large)), kv_(kv), room_(std::move(room)) {}

  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, data.size()));
    if (index != 0 || data.empty()) return large_->Write(file_id, chunk_size, index, offset, data);
    uint64_t end = offset + data.size();
    std::lock_guard lock(Stripe(file_id));
    BB_ASSIGN_OR_RETURN(std::optional<std::string> held, Held(file_id));
    if (!held) {
      if (end > kInlineChunkMax) return large_->Write(file_id, chunk_size, 0, offset, data);
      BB_ASSIGN_OR_RETURN(bool empty, LargeHoldsNoChunk0(file_id, chunk_size));
      if (!empty) return large_->Write(file_id, chunk_size, 0, offset, data);
      held.emplace();
    } else if (end > kInlineChunkMax) {
      BB_RETURN_IF_ERROR(MoveToLarge(file_id, chunk_size, *held));
      return large_->Write(file_id, chunk_size, 0, offset, data);
    }
    // Each Put writes the whole value to the MetaStore's log, not only its growth: all of it must
    // fit (as a rewrite of a chunk in its segment counts all its bytes).
    if (room_) BB_RETURN_IF_ERROR(room_(std::max<uint64_t>(end, held->size())));
    if (end > held->size()) held->resize(end, '\0');
    std::memcpy(held->data() + offset, data.data(), data.size());
    return kv_->Put(InlineKey(file_id), std::move(*held));
  }

  Result<size_t> Read(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                      std::span<char> buf) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, buf.size()));
    if (index != 0) return large_->Read(file_id, chunk_size, index, offset, buf);
    BB_ASSIGN_OR_RETURN(std::optional<std::string> held, Held(file_id));
    if (!held) return large_->Read(file_id, chunk_size, 0, offset, buf);
    if (offset >= held->size()) return size_t{0};
    size_t n = std::min<size_t>(buf.size(), held->size() - offset);
    std::memcpy(buf.data(), held->data() + offset, n);
    return n;
  }

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    if (index == 0) {  // reserved space is the large store's: chunk 0 moves there first
      std::lock_guard lock(Stripe(file_id));
      BB_ASSIGN_OR_RETURN(std::optional<std::string> held, Held(file_id));
      if (held) BB_RETURN_IF_ERROR(MoveToLarge(file_id, chunk_size, *held));
      return large_->Allocate(file_id, chunk_size, 0, offset, length);
    }
    return large_->Allocate(file_id, chunk_size, index, offset, length);
  }

  Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    if (index == 0) {
      std::lock_guard lock(Stripe(file_id));
      BB_ASSIGN_OR_RETURN(std::optional<std::string> held, Held(file_id));
      if (held) {
        if (offset >= held->size()) return Status::Ok();
        std::fill_n(held->begin() + static_cast<std::ptrdiff_t>(offset),
                    std::min<uint64_t>(length, held->size() - offset), '\0');
        return kv_->Put(InlineKey(file_id), std::move(*held));
      }
    }
    return large_->Zero(file_id, chunk_size, index, offset, length);
  }

  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    {
      std::lock_guard lock(Stripe(file_id));
      BB_ASSIGN_OR_RETURN(std::optional<std::string> held, Held(file_id));
      if (held && size < held->size()) {
        if (size == 0) {
          BB_RETURN_IF_ERROR(kv_->Delete(InlineKey(file_id)));
        } else {
          held->resize(size);
          BB_RETURN_IF_ERROR(kv_->Put(InlineKey(file_id), std::move(*held)));
        }
      }
    }
    return large_->Truncate(file_id, size, chunk_size);
  }

  // Deletes the key even when no value is held: a tombstone costs about what the Get to find out
  // would, and is dropped at the next compaction.
  Status Remove(uint64_t file_id) override {
    {
      std::lock_guard lock(Stripe(file_id));
      BB_RETURN_IF_ERROR(kv_->Delete(InlineKey(file_id)));
    }
    return large_->Remove(file_id);
  }

  Status Sync(uint64_t file_id) override {
    BB_RETURN_IF_ERROR(large_->Sync(file_id));
    // Also when no value is held: its removal (moved, truncated away) must last too, or an old
    // value would come back over newer data. Free when nothing was written since the last sync.
    return kv_->Sync();
  }

 private:
  std::mutex& Stripe(uint64_t file_id) { return stripes_[(file_id * 0x9E3779B97F4A7C15ull) >> 58]; }

  // Chunk 0's bytes when they live here; nullopt when they do not.
  Result<std::optional<std::string>> Held(uint64_t file_id) {
    auto value = kv_->Get(InlineKey(file_id));
    if (value) return std::optional<std::string>(std::move(*value));
    if (value.error().code() == ENOENT) return std::optional<std::string>();
    return value.error();
  }

  // Whether the large store holds nothing of chunk 0: it reads no byte at its start (a store
  // that holds a later part, even a hole, reads zeros there).
  Result<bool> LargeHoldsNoChunk0(uint64_t file_id, uint64_t chunk_size) {
    char byte;
    BB_ASSIGN_OR_RETURN(size_t n, large_->Read(file_id, chunk_size, 0, 0, {&byte, 1}));
    return n == 0;
  }

  // REQUIRES the file's stripe. Chunk 0 goes to the large store (written there, and made
  // durable, before its value goes: so a reader finds it in one of the two, and the value's
  // removal, which another file's sync may make durable at any time, never outlasts data that
  // was synced as the value).
  Status MoveToLarge(uint64_t file_id, uint64_t chunk_size, const std::string& held) {
    if (!held.empty()) {
      BB_RETURN_IF_ERROR(large_->Write(file_id, chunk_size, 0, 0, held));
      BB_RETURN_IF_ERROR(large_->Sync(file_id));
    }
    return kv_->Delete(InlineKey(file_id));
  }

  const std::unique_ptr<ChunkStore> large_;
  MetaStore* const kv_;
  const SpaceCheck room_;                     // may be empty: no check
  std::array<std::mutex, kStripes> stripes_;  // each serializes changes to chunk 0 of its files
};

}  // namespace

std::unique_ptr<ChunkStore> NewInlineChunkStore(std::unique_ptr<ChunkStore> large, MetaStore* kv, SpaceCheck room) {
  return std::make_unique<InlineChunkStore>(std::move(large), kv, std::move(room));
}

}  // namespace bb::fs
