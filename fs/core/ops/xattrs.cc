// Extended attributes: kept in the file's entry (Metadata::xattrs), so they move with its renames,
// go with its removal and reach other nodes as its attributes do; changed at its owner, which
// checks the flags and limits (CheckUpdate).
#include <sys/xattr.h>

#include <string_view>

#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"

namespace bb::fs {
namespace {

// The namespaces kept. Who may change which is the kernel's to decide before it asks (with
// default_permissions: the file's permissions for user.*, CAP_SYS_ADMIN for trusted.* and most of
// security.*, CAP_SETFCAP for security.capability), and it removes security.capability itself, in
// the name of whoever writes the file. ACLs (`system.posix_acl_*`) are not kept: the kernel would
// have to enforce them.
Status CheckName(const std::string& name) {
  if (name.empty() || name.size() > kMaxXattrName) {
    return Status(ERANGE, "extended attribute name of " + std::to_string(name.size()) + " bytes");
  }
  std::string_view n(name);
  if (n.starts_with("user.") || n.starts_with("trusted.") || n.starts_with("security.")) return Status::Ok();
  return Status(EOPNOTSUPP, "extended attributes like " + name + " are not kept");
}

}  // namespace

Status FileSystem::SetXattr(uint64_t ino, const std::string& name, std::string_view value, int flags) {
  Count(FsOp::kSetXattr);
  if (flags & ~(XATTR_CREATE | XATTR_REPLACE)) return Status(EINVAL, "setxattr flags " + std::to_string(flags));
  BB_RETURN_IF_ERROR(CheckName(name));
  if (value.size() > kMaxXattrValue) return Status(E2BIG, "extended attribute value past 64 KiB");
  MetaUpdate u;
  u.xattr = MetaUpdate::XattrChange{name, std::string(value), flags};
  return ChangeXattr(ino, std::move(u));
}

Status FileSystem::RemoveXattr(uint64_t ino, const std::string& name) {
  Count(FsOp::kRemoveXattr);
  BB_RETURN_IF_ERROR(CheckName(name));
  MetaUpdate u;
  u.xattr = MetaUpdate::XattrChange{name, std::nullopt, 0};
  return ChangeXattr(ino, std::move(u));
}

Result<std::string> FileSystem::GetXattr(uint64_t ino, const std::string& name) {
  Count(FsOp::kGetXattr);
  BB_RETURN_IF_ERROR(CheckName(name));
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, FreshMeta(inode));
  auto it = md.xattrs.find(name);
  if (it == md.xattrs.end()) return Status(ENODATA, "no extended attribute " + name);
  return it->second;
}

Result<std::string> FileSystem::ListXattr(uint64_t ino) {
  Count(FsOp::kListXattr);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  BB_ASSIGN_OR_RETURN(Metadata md, FreshMeta(inode));
  std::string names;
  for (const auto& [name, value] : md.xattrs) names.append(name).push_back('\0');
  return names;
}

Status FileSystem::ChangeXattr(uint64_t ino, MetaUpdate u) {
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  auto [path, unlinked] = NameOf(*inode);
  u.ctime_ns = clock_->WallNs();
  return ChangeEntry(inode, path, unlinked, u).status();
}

}  // namespace bb::fs
