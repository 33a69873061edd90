// Looking up what is mounted where (from /proc/self/mountinfo), and aborting a FUSE mount.
//
// Thread-safety: any thread; the lookups read only the process's mount table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb {

// What is mounted exactly at `path` (the topmost of mounts stacked there): its file system type
// ("fuse.bbfs", "tmpfs", ...) and device, or nullopt when nothing is. `path` must be absolute and
// normalized. Reads only the mount table: never a call into the mounted file system.
struct MountEntry {
  std::string fstype;
  unsigned major = 0;
  unsigned minor = 0;
};
std::optional<MountEntry> FindMount(const std::string& path);

inline std::optional<std::string> MountedFsType(const std::string& path) {
  auto entry = FindMount(path);
  return entry ? std::optional<std::string>(entry->fstype) : std::nullopt;
}

inline bool IsMountPoint(const std::string& path) { return MountedFsType(path).has_value(); }

// Aborts the FUSE connection mounted at `mount`: the kernel answers every request it holds, and
// every later one, with ENOTCONN. Through fusectl's `abort` file when fusectl is mounted, else by
// a forced unmount (MNT_FORCE, which aborts even when the mount is busy). For a daemon whose
// session reads no more requests and which must not wait for the ones left unread.
Status AbortFuseConnection(const std::string& mount);

// A path as the kernel writes it in mountinfo, decoded: it escapes space, tab, newline and
// backslash as three octal digits ("\040", "\011", "\012", "\134").
std::string DecodeMountPath(const std::string& field);

}  // namespace bb
