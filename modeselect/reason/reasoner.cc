#include "modeselect/reason/reasoner.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace bb::modeselect {
namespace {

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// Why `d` cannot be used at all, or "" when it is well formed.
std::string Malformed(const Decision& d) {
  if (d.mode < 1 || d.mode > 4) {
    return "the " + d.selected_by + " reasoner chose mode " + std::to_string(d.mode) + ", which is not a mode (1..4)";
  }
  if (!std::isfinite(d.confidence) || d.confidence < 0 || d.confidence > 1) {
    return "the " + d.selected_by + " reasoner gave a confidence outside 0..1";
  }
  return "";
}

}  // namespace

Decision Finalize(const Result<Decision>& outcome, double min_confidence) {
  if (!outcome.has_value()) {
    return Fallback("no decision (" + outcome.error().ToString() + "); mode 3 is correct for any job");
  }
  const Decision& d = *outcome;
  if (std::string why = Malformed(d); !why.empty()) {
    return Fallback(why + "; mode 3 is correct for any job");
  }
  if (d.confidence >= min_confidence) return d;

  Decision f = Fallback("the " + d.selected_by + " reasoner chose mode " + std::to_string(d.mode) +
                        " with confidence " + Fixed2(d.confidence) + ", below the minimum " + Fixed2(min_confidence) +
                        " (its reason: " + d.primary_reason + "); mode 3 is correct for any job");
  f.io_topology = d.io_topology;
  f.scores = d.scores;
  f.evidence = d.evidence;
  f.risk_analysis = d.risk_analysis;
  f.rules_fired = d.rules_fired;
  f.elapsed_ms = d.elapsed_ms;
  f.own_mode = d.mode;
  f.own_confidence = d.confidence;
  f.own_by = d.selected_by;
  f.confidence_meaning = d.confidence_meaning;
  return f;
}

}  // namespace bb::modeselect
