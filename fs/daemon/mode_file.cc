#include "fs/daemon/mode_file.h"

#include <yaml-cpp/yaml.h>

#include "fs/daemon/yaml_fields.h"

#include <fstream>
#include <set>
#include <sstream>

#include "fs/core/chunking.h"
#include "fs/daemon/config.h"

namespace bb::fs {
Result<ModeFile> ParseModeFile(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYaml(text, source));
  if (!doc.IsMap()) return YamlError(source, doc.Mark(), "a mode file must be a mapping of fields");
  ModeFile m;
  bool have_mode = false, have_ratio = false;
  YAML::Mark ratio_mark;
  for (const auto& kv : doc) {
    if (!kv.first.IsScalar()) return YamlError(source, kv.first.Mark(), "field names must be plain words");
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "mode") {
      BB_ASSIGN_OR_RETURN(int64_t mode, YamlScalar<int64_t>(source, field, v, "1, 2, 3 or 4"));
      if (mode < 1 || mode > 4) return YamlError(source, v.Mark(), "field 'mode' must be 1, 2, 3 or 4, got " + v.Scalar());
      m.layout.mode = static_cast<LayoutMode>(mode);
      have_mode = true;
    } else if (field == "chunk_size") {
      BB_ASSIGN_OR_RETURN(m.chunk_size, YamlChunkSize(source, field, v));
    } else if (field == "metadata_server_ratio") {
      BB_ASSIGN_OR_RETURN(m.layout.metadata_server_ratio, YamlScalar<double>(source, field, v, "a number"));
      if (!(m.layout.metadata_server_ratio > 0 && m.layout.metadata_server_ratio <= 1)) {
        return YamlError(source, v.Mark(), "field 'metadata_server_ratio' must be in (0, 1], got " + v.Scalar());
      }
      have_ratio = true;
      ratio_mark = v.Mark();
    } else if (field == "confidence") {
      BB_ASSIGN_OR_RETURN(m.confidence, YamlScalar<double>(source, field, v, "a number"));
      if (!(m.confidence >= 0 && m.confidence <= 1)) return YamlError(source, v.Mark(), "field 'confidence' must be in [0, 1]");
    } else if (field == "reason") {
      BB_ASSIGN_OR_RETURN(m.reason, YamlScalar<std::string>(source, field, v, "text"));
    } else if (field == "selected_by") {
      BB_ASSIGN_OR_RETURN(m.selected_by, YamlScalar<std::string>(source, field, v, "a word"));
      static const std::set<std::string> kWho = {"rules", "llm", "user", "fallback"};
      if (!kWho.count(m.selected_by)) {
        return YamlError(source, v.Mark(), "field 'selected_by' must be rules, llm, user or fallback");
      }
    } else {
      return YamlError(source, kv.first.Mark(),
                 "unknown field '" + field +
                     "' (known: mode, chunk_size, metadata_server_ratio, confidence, reason, selected_by)");
    }
  }
  if (!have_mode) return YamlError(source, doc.Mark(), "field 'mode' is required");
  if (have_ratio && m.layout.mode != LayoutMode::kCentralizedMeta) {
    return YamlError(source, ratio_mark, "field 'metadata_server_ratio' applies to mode 2 only");
  }
  return m;
}

Result<ModeFile> LoadModeFile(const std::string& path) {
  BB_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "mode file"));
  return ParseModeFile(text, path);
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
