// Extended attribute operations (only with `xattrs: on`: FuseOperations).
#include <sys/xattr.h>

#include "fs/fuse/adapter.h"

namespace bb::fs::adapter {
namespace {

constexpr auto kMeta = qos::Class::kMetadata;

// getxattr and listxattr: the size alone when asked for 0 bytes, ERANGE when `size` is too small.
void ReplyBytes(fuse_req_t req, const std::string& bytes, size_t size) {
  if (size == 0) {
    fuse_reply_xattr(req, bytes.size());
  } else if (size < bytes.size()) {
    fuse_reply_err(req, ERANGE);
  } else {
    fuse_reply_buf(req, bytes.data(), bytes.size());
  }
}

}  // namespace

void SetXattr(fuse_req_t req, fuse_ino_t ino, const char* name, const char* value, size_t size, int flags) {
  Admit(req, kMeta, 1, [req, ino, name = std::string(name), value = std::string(value, size), flags] {
    Status s = Ctx(req).fs->SetXattr(ino, name, value, flags);
    if (!s.ok()) return ReplyError(req, s, "setxattr");
    fuse_reply_err(req, 0);
  });
}

void GetXattr(fuse_req_t req, fuse_ino_t ino, const char* name, size_t size) {
  Admit(req, kMeta, 1, [req, ino, name = std::string(name), size] {
    auto value = Ctx(req).fs->GetXattr(ino, name);
    if (!value) return ReplyError(req, value.error(), "getxattr");
    ReplyBytes(req, *value, size);
  });
}

void ListXattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  Admit(req, kMeta, 1, [req, ino, size] {
    auto names = Ctx(req).fs->ListXattr(ino);
    if (!names) return ReplyError(req, names.error(), "listxattr");
    ReplyBytes(req, *names, size);
  });
}

void RemoveXattr(fuse_req_t req, fuse_ino_t ino, const char* name) {
  Admit(req, kMeta, 1, [req, ino, name = std::string(name)] {
    Status s = Ctx(req).fs->RemoveXattr(ino, name);
    if (!s.ok()) return ReplyError(req, s, "removexattr");
    fuse_reply_err(req, 0);
  });
}

}  // namespace bb::fs::adapter
