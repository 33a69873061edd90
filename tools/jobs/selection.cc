#include "tools/jobs/selection.h"

#include <string.h>

namespace bb::jobs {
namespace {

using nlohmann::json;

// The last non-empty line of `text`, at most 300 bytes of it.
std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  std::string line =
      text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

Selection Fallback(const std::string& why) {
  Selection s;
  s.reason = why + ": mode 3 (distributed hashing, correct for any job)";
  return s;
}

// Why `run` has no usable decision, or "" when it has one.
std::string Problem(const SelectorRun& run, const json& d) {
  if (!run.error.empty()) return "the mode selector did not run (" + run.error + ")";
  if (run.timed_out) {
    char s[32];
    std::snprintf(s, sizeof s, "%g", run.deadline_s);
    return std::string("the mode selector gave no decision within ") + s + " s";
  }
  std::string said = LastLine(run.errors);
  if (run.signal != 0) {
    return "the mode selector was killed by signal " + std::to_string(run.signal) + " (" + ::strsignal(run.signal) +
           ")" + (said.empty() ? "" : ": " + said);
  }
  if (run.exit_status != 0) {
    return "the mode selector failed (exit " + std::to_string(run.exit_status) + ")" +
           (said.empty() ? "" : ": " + said);
  }
  if (!d.is_object()) return "the mode selector printed no decision";
  auto mode = d.find("selected_mode");
  if (mode == d.end() || !mode->is_number_integer() || mode->get<int64_t>() < 1 || mode->get<int64_t>() > 4) {
    return "the mode selector's decision names no mode 1 to 4";
  }
  if (!run.mode_file_mode) return "the mode selector's mode file cannot be used (" + run.mode_file_error + ")";
  if (*run.mode_file_mode != mode->get<int>()) {
    return "the mode selector's mode file says mode " + std::to_string(*run.mode_file_mode) + ", its decision mode " +
           std::to_string(mode->get<int>());
  }
  return "";
}

}  // namespace

Selection TakeDecision(const SelectorRun& run) {
  // The decision is the last line that parses: a selector prints one JSON object with --json.
  json d = json::parse(LastLine(run.output), nullptr, false);
  std::string problem = Problem(run, d);
  if (!problem.empty()) return Fallback(problem);
  Selection s;
  s.mode = d["selected_mode"].get<int>();
  s.fallback = false;
  s.decision = d;
  s.selected_by = d.value("selected_by", std::string("?"));
  s.confidence = d.contains("confidence") && d["confidence"].is_number() ? d["confidence"].get<double>() : 0;
  s.reason =
      d.contains("primary_reason") && d["primary_reason"].is_string() ? d["primary_reason"].get<std::string>() : "";
  return s;
}

}  // namespace bb::jobs
