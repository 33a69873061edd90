// Reading fields of the daemon's YAML files (configuration, mode files) with errors that name
// the file, the line and the field. yaml-cpp's exceptions stop here.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "fs/base/status.h"

namespace bb::fs {

// EINVAL "<source>:<line>: <what>".
inline Status YamlError(const std::string& source, const YAML::Mark& mark, const std::string& what) {
  return Status(EINVAL, source + ":" + std::to_string(mark.line + 1) + ": " + what);
}

// The scalar `node` of field `field` as T, or an error saying it must be `expected`.
template <typename T>
Result<T> YamlScalar(const std::string& source, const std::string& field, const YAML::Node& node,
                     const char* expected) {
  if (!node.IsScalar()) return YamlError(source, node.Mark(), "field '" + field + "' must be " + expected);
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    return YamlError(source, node.Mark(),
                     "field '" + field + "' must be " + expected + ", got '" + node.Scalar() + "'");
  }
}

// An integer field within [lo, hi]: an error saying it must be `expected` (not an integer) or
// "lo..hi" followed by `unit` (out of range).
inline Result<uint32_t> YamlIntIn(const std::string& source, const std::string& field, const YAML::Node& node,
                                  int64_t lo, int64_t hi, const char* expected = "an integer",
                                  const std::string& unit = "") {
  BB_ASSIGN_OR_RETURN(int64_t n, YamlScalar<int64_t>(source, field, node, expected));
  if (n < lo || n > hi) {
    return YamlError(source, node.Mark(), "field '" + field + "' must be " + std::to_string(lo) + ".." +
                                              std::to_string(hi) + (unit.empty() ? "" : " " + unit));
  }
  return static_cast<uint32_t>(n);
}

// Parses YAML text; a syntax error is EINVAL "<source>:<line>: <what>".
Result<YAML::Node> ParseYaml(const std::string& text, const std::string& source);
// The whole text of `path`; ENOENT (or the errno of the read) naming the file as `what`.
Result<std::string> ReadTextFile(const std::string& path, const std::string& what);
// A size field ("4096", "512KiB", ...) in bytes.
Result<uint64_t> YamlSize(const std::string& source, const std::string& field, const YAML::Node& node);
// A chunk size field: a size that is a power of two from 4 KiB to 1 GiB.
Result<uint64_t> YamlChunkSize(const std::string& source, const std::string& field,
                               const YAML::Node& node);

}  // namespace bb::fs
