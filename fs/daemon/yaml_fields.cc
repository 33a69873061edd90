#include "fs/daemon/yaml_fields.h"

#include <fstream>
#include <sstream>

#include "fs/core/chunking.h"
#include "fs/daemon/config.h"

namespace bb::fs {

Result<YAML::Node> ParseYaml(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status(EINVAL, source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Result<std::string> ReadTextFile(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) return Status(errno ? errno : ENOENT, "cannot read " + what + " " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<uint64_t> YamlSize(const std::string& source, const std::string& field, const YAML::Node& node) {
  BB_ASSIGN_OR_RETURN(std::string s, YamlScalar<std::string>(source, field, node, "a size"));
  auto bytes = ParseByteSize(s);
  if (!bytes) return YamlError(source, node.Mark(), "field '" + field + "': " + bytes.error().message());
  return *bytes;
}

Result<uint64_t> YamlChunkSize(const std::string& source, const std::string& field,
                               const YAML::Node& node) {
  BB_ASSIGN_OR_RETURN(uint64_t bytes, YamlSize(source, field, node));
  if (!IsValidChunkSize(bytes)) {
    return YamlError(source, node.Mark(), "field '" + field +
                                              "' must be a power of two from 4KiB to 1GiB, got " + node.Scalar());
  }
  return bytes;
}

}  // namespace bb::fs
