// MetaUpdate: how an owner applies an update to an entry, and what it refuses first.
#include <sys/xattr.h>

#include <algorithm>

#include "fs/core/service/node_service.h"

namespace bb::fs {

void ApplyUpdate(const MetaUpdate& u, Metadata* md) {
  if (u.mode) md->mode = *u.mode & 07777;
  if (u.uid) md->uid = *u.uid;
  if (u.gid) md->gid = *u.gid;
  if (u.size) md->size = *u.size;
  if (u.grow_to) {
    md->size = std::max(md->size, *u.grow_to);
    if (u.mtime_ns) md->mtime_ns = std::max(md->mtime_ns, *u.mtime_ns);
    if (u.ctime_ns) md->ctime_ns = std::max(md->ctime_ns, *u.ctime_ns);
  } else {
    if (u.mtime_ns) md->mtime_ns = *u.mtime_ns;
    if (u.ctime_ns) md->ctime_ns = *u.ctime_ns;
  }
  if (u.atime_ns) md->atime_ns = *u.atime_ns;
  if (u.data_location) md->data_location = *u.data_location;
  if (u.append) md->size += *u.append;
  if (u.touch_ns) {
    md->mtime_ns = std::max(md->mtime_ns, *u.touch_ns);
    md->ctime_ns = std::max(md->ctime_ns, *u.touch_ns);
  }
  if (u.subdirs) md->subdirs = static_cast<uint32_t>(std::max<int64_t>(0, int64_t{md->subdirs} + *u.subdirs));
  if (u.links) md->nlink = static_cast<uint32_t>(std::max<int64_t>(0, int64_t{md->nlink} + *u.links));
  if (u.link_role) md->link = *u.link_role;
  if (u.alloc_to) md->alloc_end = std::max(md->alloc_end, *u.alloc_to);
  if (u.xattr && u.xattr->value) {
    md->xattrs[u.xattr->name] = *u.xattr->value;
  } else if (u.xattr) {
    md->xattrs.erase(u.xattr->name);
  }
}

Status CheckUpdate(const MetaUpdate& u, const Metadata& md, const std::string& path) {
  uint64_t end = std::max({md.size, u.size.value_or(0), u.grow_to.value_or(0)});
  if (end > kMaxFileBytes || u.append.value_or(0) > kMaxFileBytes - end) {
    return Status(EFBIG, path + ": a size past the largest file offset");
  }
  if (!u.xattr) return Status::Ok();
  const MetaUpdate::XattrChange& x = *u.xattr;
  auto held = md.xattrs.find(x.name);
  if (x.name.empty() || x.name.size() > kMaxXattrName) return Status(ERANGE, path + ": extended attribute name length");
  if (held == md.xattrs.end() && (!x.value || (x.flags & XATTR_REPLACE))) {
    return Status(ENODATA, path + ": no extended attribute " + x.name);
  }
  if (held != md.xattrs.end() && (x.flags & XATTR_CREATE)) {
    return Status(EEXIST, path + ": extended attribute " + x.name + " exists");
  }
  if (x.value) {
    if (x.value->size() > kMaxXattrValue) return Status(E2BIG, path + ": extended attribute value past 64 KiB");
    size_t bytes = XattrBytes(md.xattrs) - (held == md.xattrs.end() ? 0 : held->first.size() + held->second.size());
    if (bytes + x.name.size() + x.value->size() > kMaxXattrBytes) {
      return Status(ENOSPC, path + ": more than 128 KiB of extended attributes");
    }
  }
  return Status::Ok();
}

}  // namespace bb::fs
