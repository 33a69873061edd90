// Paths inside the file system: absolute, normalized ("/", "/a", "/a/b"; no trailing slash, no
// empty, "." or ".." components), built only by joining a validated name to a parent.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb::fs {

inline constexpr size_t kNameMax = 255;
// PATH_MAX: the longest path one call may name, and the longest symlink target.
inline constexpr size_t kPosixPathMax = 4096;
// The longest path inside the file system: a workspace's root ("/<name>") and below it any path
// a call may name relative to that root. A job that works in its workspace (pjdfstest's
// PATH_MAX-deep trees, relative to the workspace) reaches exactly what it would on a local file
// system; only paths built from a working directory deeper still are refused (ENAMETOOLONG).
inline constexpr size_t kPathMax = 1 + kNameMax + kPosixPathMax;

// OK for a valid directory-entry name; ENAMETOOLONG over kNameMax bytes; EINVAL for "", ".",
// ".." or a name containing '/' or NUL.
Status ValidateName(std::string_view name);
// "<parent>/<name>" (or "/<name>" under the root). ENAMETOOLONG when longer than kPathMax.
// REQUIRES: ValidateName(name).ok() and `parent` normalized.
Result<std::string> JoinPath(std::string_view parent, std::string_view name);
// Number of components: "/" = 0, "/a/b" = 2.
size_t PathDepth(std::string_view path);
// "/a/b" -> "/a"; "/a" -> "/"; "/" -> "/".
std::string_view ParentPath(std::string_view path);
// "/a/b" -> "b"; "/" -> "".
std::string_view BaseName(std::string_view path);
// True when `path` equals `ancestor` or lies below it.
bool IsSameOrBelow(std::string_view path, std::string_view ancestor);

}  // namespace bb::fs
