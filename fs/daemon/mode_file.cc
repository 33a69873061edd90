#include "fs/daemon/mode_file.h"

#include <yaml-cpp/yaml.h>

#include "fs/daemon/yaml_fields.h"

#include <fstream>
#include <set>
#include <sstream>

#include "fs/core/chunking.h"
#include "fs/daemon/config.h"

namespace bb::fs {
namespace {

constexpr auto Bad = YamlError;

template <typename T>
Result<T> Scalar(const std::string& source, const std::string& field, const YAML::Node& node,
                 const char* expected) {
  return YamlScalar<T>(source, field, node, expected);
}

}  // namespace

Result<ModeFile> ParseModeFile(const std::string& text, const std::string& source) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status(EINVAL, source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!doc.IsMap()) return Bad(source, doc.Mark(), "a mode file must be a mapping of fields");
  ModeFile m;
  bool have_mode = false, have_ratio = false;
  YAML::Mark ratio_mark;
  for (const auto& kv : doc) {
    if (!kv.first.IsScalar()) return Bad(source, kv.first.Mark(), "field names must be plain words");
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "mode") {
      BB_ASSIGN_OR_RETURN(int64_t mode, Scalar<int64_t>(source, field, v, "1, 2, 3 or 4"));
      if (mode < 1 || mode > 4) return Bad(source, v.Mark(), "field 'mode' must be 1, 2, 3 or 4, got " + v.Scalar());
      m.layout.mode = static_cast<LayoutMode>(mode);
      have_mode = true;
    } else if (field == "chunk_size") {
      BB_ASSIGN_OR_RETURN(std::string s, Scalar<std::string>(source, field, v, "a size"));
      auto bytes = ParseByteSize(s);
      if (!bytes) return Bad(source, v.Mark(), "field 'chunk_size': " + bytes.error().message());
      if (!IsValidChunkSize(*bytes)) {
        return Bad(source, v.Mark(), "field 'chunk_size' must be a power of two from 4KiB to 1GiB, got " + s);
      }
      m.chunk_size = *bytes;
    } else if (field == "metadata_server_ratio") {
      BB_ASSIGN_OR_RETURN(m.layout.metadata_server_ratio, Scalar<double>(source, field, v, "a number"));
      if (!(m.layout.metadata_server_ratio > 0 && m.layout.metadata_server_ratio <= 1)) {
        return Bad(source, v.Mark(), "field 'metadata_server_ratio' must be in (0, 1], got " + v.Scalar());
      }
      have_ratio = true;
      ratio_mark = v.Mark();
    } else if (field == "confidence") {
      BB_ASSIGN_OR_RETURN(m.confidence, Scalar<double>(source, field, v, "a number"));
      if (!(m.confidence >= 0 && m.confidence <= 1)) return Bad(source, v.Mark(), "field 'confidence' must be in [0, 1]");
    } else if (field == "reason") {
      BB_ASSIGN_OR_RETURN(m.reason, Scalar<std::string>(source, field, v, "text"));
    } else if (field == "selected_by") {
      BB_ASSIGN_OR_RETURN(m.selected_by, Scalar<std::string>(source, field, v, "a word"));
      static const std::set<std::string> kWho = {"rules", "llm", "user", "fallback"};
      if (!kWho.count(m.selected_by)) {
        return Bad(source, v.Mark(), "field 'selected_by' must be rules, llm, user or fallback");
      }
    } else {
      return Bad(source, kv.first.Mark(),
                 "unknown field '" + field +
                     "' (known: mode, chunk_size, metadata_server_ratio, confidence, reason, selected_by)");
    }
  }
  if (!have_mode) return Bad(source, doc.Mark(), "field 'mode' is required");
  if (have_ratio && m.layout.mode != LayoutMode::kCentralizedMeta) {
    return Bad(source, ratio_mark, "field 'metadata_server_ratio' applies to mode 2 only");
  }
  return m;
}

Result<ModeFile> LoadModeFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(ENOENT, "cannot read mode file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseModeFile(ss.str(), path);
}

std::string FormatModeFile(const ModeFile& m) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "mode" << YAML::Value << static_cast<int>(m.layout.mode);
  e << YAML::Key << "chunk_size" << YAML::Value << m.chunk_size;
  if (m.layout.mode == LayoutMode::kCentralizedMeta) {
    e << YAML::Key << "metadata_server_ratio" << YAML::Value << m.layout.metadata_server_ratio;
  }
  e << YAML::Key << "confidence" << YAML::Value << m.confidence;
  e << YAML::Key << "reason" << YAML::Value << YAML::DoubleQuoted << m.reason;
  e << YAML::Key << "selected_by" << YAML::Value << m.selected_by;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace bb::fs
