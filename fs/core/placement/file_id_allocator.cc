#include "fs/core/placement/file_id_allocator.h"

#include <string>

namespace bb::fs {
namespace {

const char kReservedKey[] = "Sfile_id_reserved";

std::string EncodeU64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

}  // namespace

// REQUIRES mu_.
Status FileIdAllocator::Reserve() {
  if (limit_ == 0) {
    auto stored = store_->Get(kReservedKey);
    if (stored) {
      if (stored->size() != 8) return Status(EIO, "file id reservation record is corrupt");
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>((*stored)[i])) << (8 * i);
      next_ = limit_ = v;
    } else if (stored.error().code() == ENOENT) {
      next_ = limit_ = 1;
    } else {
      return stored.error();
    }
  }
  if (next_ >= kCounterEnd) return Status(ENOSPC, "this node's file ids are used up");
  if (next_ == limit_) {
    BB_RETURN_IF_ERROR(store_->Put(kReservedKey, EncodeU64(limit_ + kBlock), /*sync=*/true));
    limit_ += kBlock;
  }
  return Status::Ok();
}

}  // namespace bb::fs
