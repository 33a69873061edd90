#include "tools/jobs/bb_directives.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "fs/base/units.h"
#include "tools/jobs/words.h"

namespace bb::jobs {
namespace {

constexpr const char* kVariables[] = {"SLURM_JOB_ID", "SLURM_SUBMIT_DIR", "HOME", "USER", "BB_WORKSPACE"};

// Replaces $NAME and ${NAME} with their values (BB_WORKSPACE stays as written: InsidePath reads
// it). EINVAL for any other variable.
Result<std::string> Expand(const std::string& in, const std::map<std::string, std::string>& vars) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$') {
      out.push_back(in[i]);
      continue;
    }
    bool braced = i + 1 < in.size() && in[i + 1] == '{';
    size_t start = i + (braced ? 2 : 1), end = start;
    while (end < in.size() && (std::isalnum(static_cast<unsigned char>(in[end])) || in[end] == '_')) ++end;
    if (braced && (end >= in.size() || in[end] != '}')) return Status(EINVAL, "unterminated ${ in '" + in + "'");
    std::string name = in.substr(start, end - start);
    bool known = false;
    for (const char* v : kVariables) known = known || name == v;
    if (!known)
      return Status(EINVAL,
                    "'$" + name + "' is not one of $SLURM_JOB_ID, $SLURM_SUBMIT_DIR, $HOME, $USER, $BB_WORKSPACE");
    if (name == "BB_WORKSPACE") {
      out += "$BB_WORKSPACE";
    } else {
      auto it = vars.find(name);
      if (it == vars.end()) return Status(EINVAL, "'$" + name + "' has no value here");
      out += it->second;
    }
    i = braced ? end : end - 1;
  }
  return out;
}

}  // namespace

bool LeavesWorkspace(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

namespace {

Result<StageType> ParseType(const std::string& v) {
  if (v == "file") return StageType::kFile;
  if (v == "directory") return StageType::kDirectory;
  if (v == "list") return StageType::kList;
  return Status(EINVAL, "'" + v + "' is not file, directory or list");
}

Status ApplyMode(const std::map<std::string, std::string>& kv, BbRequest* r) {
  for (const auto& [key, value] : kv) {
    if (key == "mode") {
      if (value == "auto") {
        r->mode = 0;
      } else if (value.size() == 1 && value[0] >= '1' && value[0] <= '4') {
        r->mode = value[0] - '0';
      } else {
        return Status(EINVAL, "mode: '" + value + "' is not auto, 1, 2, 3 or 4");
      }
    } else if (key == "capacity") {
      // DataWarp's allocation has no counterpart: a workspace uses its nodes' local storage and a
      // full node answers ENOSPC. Accepting the key would promise a reservation nothing keeps.
      return Status(EINVAL,
                    "capacity: not supported (a workspace uses its nodes' local storage, and a full node answers "
                    "ENOSPC); remove the key");
    } else if (key == "chunk_size") {
      auto bytes = ParseByteSize(value);
      if (!bytes) return Status(EINVAL, key + ": " + bytes.error().message());
      r->chunk_size = *bytes;
    } else if (key == "profile" || key == "darshan") {
      if (value.empty()) return Status(EINVAL, key + ": a path is missing");
      (key == "profile" ? r->profile : r->darshan) = value;
    } else if (key == "reasoner") {
      if (value != "rules" && value != "llm" && value != "auto") {
        return Status(EINVAL, "reasoner: '" + value + "' is not rules, llm or auto");
      }
      r->reasoner = value;
    } else if (key == "metadata_server_ratio") {
      char* end = nullptr;
      double ratio = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0' || !(ratio > 0 && ratio <= 1)) {
        return Status(EINVAL, key + ": '" + value + "' is not a number in (0, 1]");
      }
      r->metadata_server_ratio = ratio;
    } else {
      return Status(EINVAL,
                    "unknown key '" + key + "' (mode, chunk_size, metadata_server_ratio, profile, darshan, reasoner)");
    }
  }
  if (!r->profile.empty() && !r->darshan.empty()) return Status(EINVAL, "profile= and darshan=: give one");
  bool selector_keys = !r->profile.empty() || !r->darshan.empty() || !r->reasoner.empty();
  if (selector_keys && r->mode != 0) {
    return Status(EINVAL, "profile=, darshan= and reasoner= are for mode=auto (the mode is given)");
  }
  return Status::Ok();
}

Result<StageDirective> ParseStage(const std::map<std::string, std::string>& kv, int line) {
  StageDirective d;
  d.line = line;
  for (const auto& [key, value] : kv) {
    if (key == "source") {
      d.source = value;
    } else if (key == "destination") {
      d.destination = value;
    } else if (key == "type") {
      BB_ASSIGN_OR_RETURN(d.type, ParseType(value));
    } else {
      return Status(EINVAL, "unknown key '" + key + "' (source, destination, type)");
    }
  }
  if (d.source.empty()) return Status(EINVAL, "source= is missing");
  if (d.destination.empty() && d.type != StageType::kList) return Status(EINVAL, "destination= is missing");
  return d;
}

// One directive's words after "#BB": the verb (when not key=value) and its key=value pairs.
Status ApplyLine(const std::vector<std::string>& words, const std::map<std::string, std::string>& vars, int line,
                 bool* had_mode, BbRequest* r) {
  if (words.empty()) return Status(EINVAL, "an empty directive");
  size_t first = 0;
  std::string verb = "mode";
  if (words[0].find('=') == std::string::npos) {
    verb = words[0];
    first = 1;
  }
  std::map<std::string, std::string> kv;
  for (size_t i = first; i < words.size(); ++i) {
    size_t eq = words[i].find('=');
    if (eq == std::string::npos || eq == 0) return Status(EINVAL, "'" + words[i] + "' is not key=value");
    std::string key = words[i].substr(0, eq);
    if (kv.count(key)) return Status(EINVAL, key + ": given twice");
    BB_ASSIGN_OR_RETURN(kv[key], Expand(words[i].substr(eq + 1), vars));
  }
  if (verb == "mode") {
    if (*had_mode) return Status(EINVAL, "mode: a second mode line");
    *had_mode = true;
    return ApplyMode(kv, r);
  }
  if (verb == "stage_in" || verb == "stage_out") {
    BB_ASSIGN_OR_RETURN(StageDirective d, ParseStage(kv, line));
    // The burst buffer's side stays inside the job's workspace.
    const std::string& inside = verb == "stage_in" ? d.destination : d.source;
    if (d.type != StageType::kList && LeavesWorkspace(inside)) {
      return Status(EINVAL, std::string(verb == "stage_in" ? "destination" : "source") + ": '" + inside +
                                "' leaves the workspace (a '..' component)");
    }
    (verb == "stage_in" ? r->stage_in : r->stage_out).push_back(std::move(d));
    return Status::Ok();
  }
  return Status(EINVAL, "unknown directive '" + verb + "' (mode=..., stage_in, stage_out)");
}

}  // namespace

Result<BbRequest> ParseBbDirectives(const std::string& text, const std::string& source,
                                    const std::map<std::string, std::string>& vars) {
  BbRequest r;
  bool had_mode = false;
  Status s = ForEachDirective(text, "#BB", [&](int line_no, const std::string& rest) {
    auto where = [&](const std::string& what) {
      return Status(EINVAL, source + ":" + std::to_string(line_no) + ": #BB " + what);
    };
    auto words = SplitWords(rest);
    if (!words) return where(words.error().message());
    if (Status a = ApplyLine(*words, vars, line_no, &had_mode, &r); !a.ok()) return where(a.message());
    r.wanted = true;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return r;
}

std::string ModeFileText(const BbRequest& r) {
  std::string out = "mode: " + std::to_string(r.mode == 0 ? 3 : r.mode) + "\n";
  if (r.chunk_size) out += "chunk_size: " + std::to_string(r.chunk_size) + "\n";
  if (r.metadata_server_ratio && (r.mode == 2)) {
    std::ostringstream ratio;
    ratio << *r.metadata_server_ratio;
    out += "metadata_server_ratio: " + ratio.str() + "\n";
  }
  return out;
}

std::string InsidePath(const std::string& path, const std::string& workspace) {
  std::string p = path;
  for (const char* prefix : {"$BB_WORKSPACE/", "$BB_WORKSPACE"}) {
    if (p.rfind(prefix, 0) == 0) {
      p = p.substr(std::string(prefix).size());
      break;
    }
  }
  while (!p.empty() && p[0] == '/') p.erase(0, 1);
  return p.empty() ? workspace : workspace + "/" + p;
}

std::string OutsidePath(const std::string& path, const std::string& submit_dir) {
  if (!path.empty() && path[0] == '/') return path;
  return submit_dir + "/" + path;
}

Result<std::vector<std::pair<std::string, std::string>>> ParseStageList(const std::string& text,
                                                                        const std::string& source) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    auto words = SplitWords(line);
    auto where = [&](const std::string& what) {
      return Status(EINVAL, source + ":" + std::to_string(line_no) + ": " + what);
    };
    if (!words) return where(words.error().message());
    if (words->empty()) continue;
    if (words->size() != 2)
      return where("want \"SOURCE DESTINATION\", got " + std::to_string(words->size()) + " words");
    out.emplace_back((*words)[0], (*words)[1]);
  }
  return out;
}

}  // namespace bb::jobs
