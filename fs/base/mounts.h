// Looking up what is mounted where (from /proc/self/mountinfo).
//
// Thread-safety: pure functions of the process's mount table.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bb {

// The file system type mounted exactly at `path` ("fuse.bbfs", "tmpfs", ...), or nullopt when
// nothing is mounted there. `path` must be absolute and normalized.
std::optional<std::string> MountedFsType(const std::string& path);

inline bool IsMountPoint(const std::string& path) { return MountedFsType(path).has_value(); }

// A path as the kernel writes it in mountinfo, decoded: it escapes space, tab, newline and
// backslash as three octal digits ("\040", "\011", "\012", "\134").
std::string DecodeMountPath(const std::string& field);

}  // namespace bb
