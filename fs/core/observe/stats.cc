#include "fs/core/observe/stats.h"

namespace bb::fs {

const char* FsOpName(FsOp op) {
  static constexpr const char* kNames[kFsOpCount] = {
      "lookup",    "getattr",     "setattr", "mknod",   "mkdir",        "symlink", "readlink", "unlink",
      "rmdir",     "rename",      "link",    "create",  "open",         "read",    "write",    "fallocate",
      "flush",     "fsync",       "release", "opendir", "readdir_page", "statfs",  "getxattr", "setxattr",
      "listxattr", "removexattr", "getlk",   "setlk",   "flock"};
  size_t i = static_cast<size_t>(op);
  return i < kFsOpCount ? kNames[i] : "unknown";
}

}  // namespace bb::fs
