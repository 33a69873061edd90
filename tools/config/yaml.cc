#include "tools/config/yaml.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "fs/base/units.h"
#include "fs/core/placement/chunking.h"
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
  if (depth > kMaxYamlDepth) return YamlError(source, node.Mark(), "the document nests too deeply");
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

// Bounds the work a document asks for before yaml-cpp builds any node of it: an alias counts
// as every node of what its anchor names (so nested aliases, the "billion laughs" file, count
// what a reader walking the document would visit), and nesting counts through aliases too.
// yaml-cpp keeps an alias as a shared node, so building is cheap; it is every walk over the
// result that is exponential, and a bound on the expanded size keeps those linear.
class YamlBounds : public YAML::EventHandler {
 public:
  struct TooBig {
    YAML::Mark mark;
    std::string what;
  };

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    Leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    // An alias of a node still open (a cycle) or unknown counts as one node; yaml-cpp refuses
    // the unknown ones itself.
    Named named = it == anchors_.end() ? Named{1, 0} : it->second;
    Count(mark, named.nodes, static_cast<int>(open_.size()) + named.depth);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Named {
    uint64_t nodes;  // expanded, itself included
    int depth;       // levels below it
  };
  struct Frame {
    YAML::anchor_t anchor;
    uint64_t nodes_before;
    int deepest;  // the deepest level reached below it, counting through aliases
  };

  void Count(const YAML::Mark& mark, uint64_t n, int depth) {
    nodes_ += n;
    if (nodes_ > kMaxYamlNodes) {
      throw TooBig{mark, "the document holds more than " + std::to_string(kMaxYamlNodes) +
                             " nodes (aliases counted as what they repeat)"};
    }
    if (depth > kMaxYamlDepth) {
      throw TooBig{mark, "the document nests deeper than " + std::to_string(kMaxYamlDepth) +
                             " levels (aliases counted as what they repeat)"};
    }
    if (!open_.empty()) open_.back().deepest = std::max(open_.back().deepest, depth);
  }
  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Count(mark, 1, static_cast<int>(open_.size()));
    if (anchor != YAML::NullAnchor) anchors_[anchor] = Named{1, 0};
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Count(mark, 1, static_cast<int>(open_.size()) + 1);
    open_.push_back(Frame{anchor, nodes_ - 1, static_cast<int>(open_.size())});
  }
  void Close() {
    if (open_.empty()) return;
    Frame f = open_.back();
    open_.pop_back();
    int own_depth = static_cast<int>(open_.size());
    if (!open_.empty()) open_.back().deepest = std::max(open_.back().deepest, f.deepest);
    if (f.anchor != YAML::NullAnchor) anchors_[f.anchor] = Named{nodes_ - f.nodes_before, f.deepest - own_depth};
  }

  uint64_t nodes_ = 0;
  std::vector<Frame> open_;
  std::map<YAML::anchor_t, Named> anchors_;
};

Status CheckBounds(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  YamlBounds bounds;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(bounds)) {
    }
  } catch (const YamlBounds::TooBig& e) {
    return YamlError(source, e.mark, e.what);
  } catch (const YAML::Exception& e) {
    return Status(EINVAL, source + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return Status::Ok();
}

}  // namespace

Result<YAML::Node> ParseYaml(const std::string& text, const std::string& source) {
  BB_RETURN_IF_ERROR(CheckBounds(text, source));
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
