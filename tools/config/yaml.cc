#include "tools/config/yaml.h"

#include <fstream>
#include <map>
#include <sstream>

#include "fs/base/units.h"
#include "fs/core/chunking.h"
#include "fs/daemon/hosts_file.h"

namespace bb::config {

Result<int64_t> YamlIntIn(const std::string& source, const std::string& field, const YAML::Node& node, int64_t lo,
                          int64_t hi, const char* expected, const std::string& unit) {
  BB_ASSIGN_OR_RETURN(int64_t n, YamlScalar<int64_t>(source, field, node, expected));
  if (n < lo || n > hi) {
    return YamlError(source, node.Mark(),
                     "field '" + field + "' must be " + std::to_string(lo) + ".." + std::to_string(hi) +
                         (unit.empty() ? "" : " " + unit));
  }
  return n;
}

Result<double> YamlNumberIn(const std::string& source, const std::string& field, const YAML::Node& node, double lo,
                            double hi, const std::string& unit) {
  std::string expected = "a number of " + unit;
  BB_ASSIGN_OR_RETURN(double x, YamlScalar<double>(source, field, node, expected.c_str()));
  if (!(x >= lo && x <= hi)) {
    auto text = [](double v) {
      std::ostringstream o;
      o << v;
      return o.str();
    };
    return YamlError(source, node.Mark(), "field '" + field + "' must be " + text(lo) + ".." + text(hi) + " " + unit);
  }
  return x;
}

namespace {

// A key given twice in one mapping, anywhere in the document, is an error (yaml-cpp would keep
// both and a reader would silently take one).
Status CheckDuplicateKeys(const YAML::Node& node, const std::string& source, int depth = 0) {
  if (depth > 64) return YamlError(source, node.Mark(), "the document nests too deeply");
  if (node.IsSequence()) {
    for (const auto& item : node) BB_RETURN_IF_ERROR(CheckDuplicateKeys(item, source, depth + 1));
  } else if (node.IsMap()) {
    std::map<std::string, int> seen;
    for (const auto& kv : node) {
      if (kv.first.IsScalar()) {
        auto [it, fresh] = seen.emplace(kv.first.Scalar(), kv.first.Mark().line + 1);
        if (!fresh) {
          return YamlError(
              source, kv.first.Mark(),
              "field '" + kv.first.Scalar() + "' is given twice (first on line " + std::to_string(it->second) + ")");
        }
      }
      BB_RETURN_IF_ERROR(CheckDuplicateKeys(kv.second, source, depth + 1));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<YAML::Node> ParseYaml(const std::string& text, const std::string& source) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return Status(EINVAL, source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  BB_RETURN_IF_ERROR(CheckDuplicateKeys(doc, source));
  return doc;
}

Result<YAML::Node> ParseYamlMap(const std::string& text, const std::string& source, const std::string& what) {
  BB_ASSIGN_OR_RETURN(YAML::Node doc, ParseYaml(text, source));
  if (doc.IsNull()) return YAML::Node(YAML::NodeType::Map);
  if (!doc.IsMap()) return YamlError(source, doc.Mark(), what + " must be a mapping of fields");
  for (const auto& kv : doc) {
    if (!kv.first.IsScalar()) return YamlError(source, kv.first.Mark(), "field names must be plain words");
  }
  return doc;
}

Result<std::string> ReadTextFile(const std::string& path, const std::string& what, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(errno ? errno : ENOENT, "cannot read " + what + " " + path);
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      return Status(EFBIG, what + " " + path + " is larger than " + std::to_string(max_bytes >> 10) +
                               " KiB, the most this file may hold");
    }
  }
  if (in.bad()) return Status(EIO, "cannot read " + what + " " + path);
  return text;
}

Result<uint64_t> YamlSize(const std::string& source, const std::string& field, const YAML::Node& node) {
  BB_ASSIGN_OR_RETURN(std::string s, YamlScalar<std::string>(source, field, node, "a size"));
  auto bytes = ParseByteSize(s);
  if (!bytes) return YamlError(source, node.Mark(), "field '" + field + "': " + bytes.error().message());
  return *bytes;
}

Result<uint32_t> YamlChunkSize(const std::string& source, const std::string& field, const YAML::Node& node) {
  BB_ASSIGN_OR_RETURN(uint64_t bytes, YamlSize(source, field, node));
  if (!fs::IsValidChunkSize(bytes)) {
    return YamlError(source, node.Mark(),
                     "field '" + field + "' must be " + fs::kChunkSizeRule + ", got " + node.Scalar());
  }
  return static_cast<uint32_t>(bytes);
}

Result<std::string> YamlHostPort(const std::string& source, const std::string& field, const YAML::Node& node) {
  BB_ASSIGN_OR_RETURN(std::string text, YamlScalar<std::string>(source, field, node, "ip:port"));
  if (auto hp = fs::ParseHostPort(text); !hp) {
    return YamlError(source, node.Mark(), "field '" + field + "': " + hp.error().message());
  }
  return text;
}

}  // namespace bb::config
