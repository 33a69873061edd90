#include "fs/store/space_guard.h"

#include <sys/statvfs.h>

#include <cstring>

namespace bb::fs {

Result<uint64_t> FreeBytes(const std::string& dir) {
  struct statvfs sv {};
  if (::statvfs(dir.c_str(), &sv) != 0) return Status(EIO, "statvfs " + dir + ": " + std::strerror(errno));
  return static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
}

Status SpaceGuard::Check(uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    // Trust the cached value while at least half of the room seen last time is still unspent.
    uint64_t room = free_at_last_look_ > reserve_ ? free_at_last_look_ - reserve_ : 0;
    if (granted_since_look_ + bytes < room / 2) {
      granted_since_look_ += bytes;
      return Status::Ok();
    }
  }
  BB_ASSIGN_OR_RETURN(uint64_t free_bytes, FreeBytes(dir_));
  std::lock_guard lock(mu_);
  free_at_last_look_ = free_bytes;
  granted_since_look_ = 0;
  if (free_bytes < reserve_ || free_bytes - reserve_ < bytes) {
    return Status(ENOSPC, "backing store " + dir_ + " is full (" + std::to_string(free_bytes) + " bytes free, " +
                              std::to_string(reserve_) + " kept in reserve)");
  }
  granted_since_look_ = bytes;
  return Status::Ok();
}

}  // namespace bb::fs
