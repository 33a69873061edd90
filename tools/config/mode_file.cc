#include "tools/config/mode_file.h"

#include <algorithm>
#include <optional>

#include "tools/config/yaml.h"

namespace bb::config {
namespace {

constexpr const char* kSelectedBy[] = {"rules", "llm", "user", "fallback"};

std::string SelectedByList() {
  std::string out;
  for (size_t i = 0; i < std::size(kSelectedBy); ++i) {
    if (i > 0) out += i + 1 == std::size(kSelectedBy) ? " or " : ", ";
    out += kSelectedBy[i];
  }
  return out;
}

// "mode 2", or "modes 2 and 5": the modes that use a metadata ratio.
std::string RatioModes() {
  std::vector<std::string> numbers;
  for (const fs::ModeInfo& m : fs::Modes()) {
    if (m.uses_metadata_ratio) numbers.push_back(std::to_string(fs::ModeNumber(m.mode)));
  }
  std::string out = numbers.size() == 1 ? "mode " : "modes ";
  for (size_t i = 0; i < numbers.size(); ++i)
    out += (i == 0 ? "" : i + 1 == numbers.size() ? " and " : ", ") + numbers[i];
  return out;
}

Status ReadMode(const std::string& source, const YAML::Node& v, ModeFile* m) {
  std::string expected = fs::ModeNumbers();
  BB_ASSIGN_OR_RETURN(int64_t number, YamlScalar<int64_t>(source, "mode", v, expected.c_str()));
  const fs::ModeInfo* mode = fs::FindMode(number);
  if (mode == nullptr) return YamlError(source, v.Mark(), "field 'mode' must be " + expected + ", got " + v.Scalar());
  m->spec.layout.mode = mode->mode;
  return Status::Ok();
}

}  // namespace

std::span<const char* const> SelectedByValues() { return kSelectedBy; }

Result<ModeFile> ParseModeFile(const std::string& text, const std::string& source) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYamlMap(text, source, "a mode file"));
  ModeFile m;
  bool have_mode = false;
  std::optional<YAML::Mark> ratio_mark;
  for (const auto& kv : doc) {
    std::string field = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (field == "mode") {
      BB_RETURN_IF_ERROR(ReadMode(source, v, &m));
      have_mode = true;
    } else if (field == "chunk_size") {
      BB_ASSIGN_OR_RETURN(m.spec.chunk_size, YamlChunkSize(source, field, v));
    } else if (field == "metadata_server_ratio") {
      BB_ASSIGN_OR_RETURN(m.spec.layout.metadata_server_ratio, YamlScalar<double>(source, field, v, "a number"));
      if (!(m.spec.layout.metadata_server_ratio > 0 && m.spec.layout.metadata_server_ratio <= 1)) {
        return YamlError(source, v.Mark(), "field 'metadata_server_ratio' must be in (0, 1], got " + v.Scalar());
      }
      ratio_mark = v.Mark();
    } else if (field == "confidence") {
      BB_ASSIGN_OR_RETURN(m.confidence, YamlScalar<double>(source, field, v, "a number"));
      if (!(m.confidence >= 0 && m.confidence <= 1))
        return YamlError(source, v.Mark(), "field 'confidence' must be in [0, 1]");
    } else if (field == "reason") {
      BB_ASSIGN_OR_RETURN(m.reason, YamlScalar<std::string>(source, field, v, "text"));
    } else if (field == "selected_by") {
      BB_ASSIGN_OR_RETURN(m.selected_by, YamlScalar<std::string>(source, field, v, "a word"));
      if (std::find(std::begin(kSelectedBy), std::end(kSelectedBy), m.selected_by) == std::end(kSelectedBy)) {
        return YamlError(source, v.Mark(), "field 'selected_by' must be " + SelectedByList());
      }
    } else {
      return YamlError(source, kv.first.Mark(),
                       "unknown field '" + field +
                           "' (known: mode, chunk_size, metadata_server_ratio, confidence, reason, selected_by)");
    }
  }
  if (!have_mode) return YamlError(source, doc.Mark(), "field 'mode' is required");
  if (ratio_mark && !fs::ModeOf(m.spec.layout.mode).uses_metadata_ratio) {
    return YamlError(source, *ratio_mark, "field 'metadata_server_ratio' applies to " + RatioModes() + " only");
  }
  return m;
}

Result<ModeFile> LoadModeFile(const std::string& path) {
  BB_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "mode file", kMaxModeFileBytes));
  return ParseModeFile(text, path);
}

std::string FormatModeFile(const ModeFile& m) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "mode" << YAML::Value << fs::ModeNumber(m.spec.layout.mode);
  e << YAML::Key << "chunk_size" << YAML::Value << m.spec.chunk_size;
  if (fs::ModeOf(m.spec.layout.mode).uses_metadata_ratio) {
    e << YAML::Key << "metadata_server_ratio" << YAML::Value << m.spec.layout.metadata_server_ratio;
  }
  e << YAML::Key << "confidence" << YAML::Value << m.confidence;
  e << YAML::Key << "reason" << YAML::Value << YAML::DoubleQuoted << m.reason;
  e << YAML::Key << "selected_by" << YAML::Value << m.selected_by;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace bb::config
