// The one YAML reader of the project: fields of the programs' YAML files (the daemon's
// configuration, mode files, QoS policies, the mode selector's knowledge base) read into plain
// values, with errors that name the file, the line and the field. yaml-cpp's exceptions stop
// here; the libraries never see YAML.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "fs/base/status.h"

namespace bb::config {

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
Result<int64_t> YamlIntIn(const std::string& source, const std::string& field, const YAML::Node& node, int64_t lo,
                          int64_t hi, const char* expected = "an integer", const std::string& unit = "");
// A number within [lo, hi] ("must be lo..hi <unit>" otherwise).
Result<double> YamlNumberIn(const std::string& source, const std::string& field, const YAML::Node& node, double lo,
                            double hi, const std::string& unit);

// The most nodes a document may hold and how deep it may nest, an alias counted as every node
// of what it repeats: past them ParseYaml refuses the text before any value is built (a
// "billion laughs" file of nested aliases, or thousands of nested brackets, would otherwise
// keep a reader busy for ever). Every file the project reads is far below both.
inline constexpr uint64_t kMaxYamlNodes = 100'000;
inline constexpr int kMaxYamlDepth = 64;

// Parses YAML text; a syntax error, a key given twice in one mapping, and a document past
// kMaxYamlNodes or kMaxYamlDepth are EINVAL "<source>:<line>: <what>".
Result<YAML::Node> ParseYaml(const std::string& text, const std::string& source);
// The document of `text`, which must be a mapping whose keys are plain words (`what` names it
// in the error: "a mode file", "the configuration"). An empty document is an empty mapping.
Result<YAML::Node> ParseYamlMap(const std::string& text, const std::string& source, const std::string& what);
// The whole text of `path`; ENOENT (or the errno of the read) naming the file as `what`; EFBIG
// naming the limit when it holds more than `max_bytes` (configuration-sized by default).
Result<std::string> ReadTextFile(const std::string& path, const std::string& what, size_t max_bytes = 16 << 20);
// A size field ("4096", "512KiB", ...) in bytes.
Result<uint64_t> YamlSize(const std::string& source, const std::string& field, const YAML::Node& node);
// A chunk size field: a size that IsValidChunkSize (fs/core/placement/chunking.h).
Result<uint32_t> YamlChunkSize(const std::string& source, const std::string& field, const YAML::Node& node);
// An "ip:port" field.
Result<std::string> YamlHostPort(const std::string& source, const std::string& field, const YAML::Node& node);

}  // namespace bb::config
