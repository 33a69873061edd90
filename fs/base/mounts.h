// Looking up what is mounted where (from /proc/self/mountinfo).
//
// Thread-safety: pure functions of the process's mount table.
#pragma once

#include <optional>
#include <string>

namespace bb {

// The file system type mounted exactly at `path` ("fuse.bbfs", "tmpfs", ...), or nullopt when
// nothing is mounted there. `path` must be absolute and normalized.
std::optional<std::string> MountedFsType(const std::string& path);

inline bool IsMountPoint(const std::string& path) { return MountedFsType(path).has_value(); }

}  // namespace bb
