#include "modeselect/decision.h"

namespace bb::modeselect {

Decision Fallback(const std::string& why) {
  Decision d;
  d.mode = 3;
  d.confidence = 0;
  d.io_topology = "unknown";
  d.primary_reason = why;
  d.selected_by = "fallback";
  d.scores = {0, 0, 0, 0};
  return d;
}

nlohmann::json DecisionJson(const Decision& d) {
  nlohmann::json evidence = nlohmann::json::array();
  for (const EvidenceRef& e : d.evidence) {
    evidence.push_back({{"file", e.file}, {"line", e.line}, {"finding", e.finding}});
  }
  nlohmann::json scores = nlohmann::json::object();
  for (int m = 1; m <= 4; ++m) scores[std::to_string(m)] = d.scores[m - 1];
  nlohmann::json out = {{"selected_mode", d.mode},
                        {"confidence", d.confidence},
                        {"io_topology", d.io_topology},
                        {"primary_reason", d.primary_reason},
                        {"risk_analysis", d.risk_analysis},
                        {"evidence", evidence},
                        {"scores", scores},
                        {"selected_by", d.selected_by},
                        {"rules_fired", d.rules_fired},
                        {"elapsed_ms", d.elapsed_ms},
                        {"confidence_meaning", d.confidence_meaning}};
  if (d.own_mode != 0) {
    out["own_pick"] = {{"mode", d.own_mode}, {"confidence", d.own_confidence}, {"by", d.own_by}};
  }
  return out;
}

}  // namespace bb::modeselect
