#include "modeselect/select.h"

#include <cstdio>
#include <sstream>

namespace bb::modeselect {

Evidence MakeEvidence(std::optional<StaticEvidence> statics, std::optional<std::vector<Signal>> profile_signals,
                      uint32_t nodes) {
  Evidence e;
  e.have_static = statics.has_value();
  if (statics) e.statics = std::move(*statics);
  e.have_profile = profile_signals.has_value();
  if (profile_signals) e.signals = std::move(*profile_signals);
  e.nodes = nodes > 0 ? nodes : static_cast<uint32_t>(std::max(0, e.statics.nodes));
  return e;
}

Decision Decide(const Evidence& e, const KnowledgeBase& kb, Reasoner& reasoner, const Clock& clock, int64_t start_ns) {
  // The floor is for an LLM's own, uncalibrated confidence; the rules' decision has been through
  // the decision rule already (modeselect/policy.h).
  Decision d = Finalize(reasoner.Decide(e, kb), reasoner.name() == "llm" ? kb.min_confidence : 0);
  d.elapsed_ms = static_cast<double>(clock.MonotonicNs() - start_ns) / 1e6;
  return d;
}

std::string RenderDecision(const Decision& d, bool explain) {
  static const char* kNames[] = {"node-local", "centralized metadata", "distributed hashing", "hybrid"};
  std::ostringstream o;
  o.precision(2);
  o << std::fixed;
  o << "mode " << d.mode << " (" << kNames[(d.mode - 1) & 3] << "), confidence " << d.confidence << ", selected by "
    << d.selected_by << "\n";
  if (d.own_mode != 0) {
    o << "  the " << d.own_by << " reasoner's own pick: mode " << d.own_mode << " (" << kNames[(d.own_mode - 1) & 3]
      << "), confidence " << d.own_confidence << "\n";
  }
  if (!d.confidence_meaning.empty()) o << "  confidence: " << d.confidence_meaning << "\n";
  o << "  topology: " << d.io_topology << "\n";
  o << "  why: " << d.primary_reason << "\n";
  for (const std::string& r : d.risk_analysis) o << "  risk: " << r << "\n";
  if (!explain) return o.str();
  o << "  scores:";
  for (int m = 0; m < 4; ++m) o << " " << m + 1 << "=" << d.scores[m];
  o << "\n";
  if (!d.rules_fired.empty()) {
    o << "  rules fired:";
    for (const std::string& r : d.rules_fired) o << " " << r;
    o << "\n";
  }
  for (const EvidenceRef& ev : d.evidence) {
    o << "  evidence: " << (ev.file.empty() ? "profile" : ev.file + ":" + std::to_string(ev.line)) << ": " << ev.finding
      << "\n";
  }
  o.precision(1);
  o << "  decided in " << d.elapsed_ms << " ms\n";
  return o.str();
}

}  // namespace bb::modeselect
