#include "modeselect/reason/prompt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/units.h"

namespace bb::modeselect {
namespace {

using nlohmann::json;

// Caps on knowledge-base text, so a site's long YAML cannot blow the prompt up.
constexpr size_t kKbTextBytes = 160;
constexpr size_t kKbItemBytes = 100;  // of one strength or weakness
constexpr size_t kKbItems = 4;
constexpr size_t kKbPatterns = 16;
constexpr size_t kFilesListed = 8;
// What the "also found" line needs at least: its start, and ", and N more facts" after the
// facts it lists.
constexpr size_t kAlsoFoundTail = 32;
constexpr size_t kAlsoFoundReserve = 28 + kAlsoFoundTail;
// A signal's why, cut shorter than a snippet: every probe run reports every signal.
constexpr size_t kWhyBytes = 80;

// `s` on one line, cut to at most `max` bytes (never inside a UTF-8 sequence) with "...".
std::string Clip(std::string_view s, size_t max) {
  std::string out(s.substr(0, std::min(s.size(), max + 1)));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (out.size() <= max) return out;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
  out.resize(cut);
  return out + "...";
}

std::string Number(double v) {
  char buf[48];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

// "1048576 bytes (1 MiB)", "0.75 fraction", "12".
std::string WithUnit(double v, std::string_view unit) {
  std::string out = Number(v);
  if (!unit.empty()) out += " " + std::string(unit);
  if (unit == "bytes" && v >= 1024) out += " (" + FormatByteSize(v) + ")";
  return out;
}

// `s` clipped, ending in a full stop.
std::string Sentence(std::string_view s) {
  std::string out = Clip(s, kKbTextBytes);
  if (!out.empty() && out.back() != '.' && out.back() != '!' && out.back() != '?') out += ".";
  return out;
}

std::string Joined(const std::vector<std::string>& items, std::string_view sep, size_t max_items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max_items; ++i) {
    if (i > 0) out += sep;
    out += Clip(items[i], kKbItemBytes);
  }
  if (items.size() > max_items) out += std::string(sep) + "...";
  return out;
}

json Probability() { return {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}; }

std::string ModesText(const KnowledgeBase& kb) {
  std::string out =
      "The four layout modes: 1 node-local, 2 centralized metadata, 3 distributed hashing (the "
      "safe default, correct for any job), 4 hybrid local-write/global-read.\n";
  for (const ModeKnowledge& m : kb.modes) {
    out += "Mode " + std::to_string(m.mode) + " - " + Clip(m.name, kKbTextBytes) + ": " + Sentence(m.summary);
    if (!m.strengths.empty()) out += " Good at: " + Joined(m.strengths, "; ", kKbItems) + ".";
    if (!m.weaknesses.empty()) out += " Costs: " + Joined(m.weaknesses, "; ", kKbItems) + ".";
    out += "\n";
  }
  return out;
}

std::string PatternsText(const KnowledgeBase& kb) {
  if (kb.patterns.empty()) return "";
  std::string out = "Application patterns (suited modes, best first):\n";
  for (size_t i = 0; i < kb.patterns.size() && i < kKbPatterns; ++i) {
    const PatternKnowledge& p = kb.patterns[i];
    std::string modes;
    for (int m : p.modes) modes += (modes.empty() ? "" : ", ") + std::to_string(m);
    out += "- " + p.id + ": " + Clip(p.description, kKbTextBytes) + " -> modes " + modes + ": " +
           Clip(p.why, kKbTextBytes) + "\n";
  }
  if (kb.patterns.size() > kKbPatterns) out += "- ...\n";
  return out;
}

std::string SystemMessage(const KnowledgeBase& kb) {
  char min_conf[32];
  std::snprintf(min_conf, sizeof min_conf, "%.2f", kb.min_confidence);
  return "You choose the layout mode of a burst-buffer file system for one HPC job, from the "
         "evidence the user gives: static findings in the job script and sources (file:line) "
         "and signals from a probe run.\n\n" +
         ModesText(kb) + "\n" + PatternsText(kb) +
         "\nRules of the answer:\n"
         "- Reply with one JSON object that follows the schema, nothing else.\n"
         "- selected_mode: the mode that runs this job fastest without breaking its semantics. "
         "Never choose a mode whose costs break the job (e.g. files read on another node than "
         "the one that wrote them, when the mode keeps data node-local).\n"
         "- scores: for each mode 1-4, 0..1, how well it suits the job; 0 for a mode that "
         "breaks it.\n"
         "- confidence: 0..1, how sure you are. When the evidence is thin or contradicts "
         "itself, choose mode 3 and say so; below " +
         std::string(min_conf) +
         " your answer is replaced by mode 3 anyway.\n"
         "- io_topology: a few words, e.g. \"N-N private\", \"N-1 shared\", \"N-N then "
         "cross-node read\", \"metadata\".\n"
         "- primary_reason: one sentence that cites the deciding evidence.\n"
         "- evidence: the findings you relied on, with their file and line as given; for a "
         "probe signal, file \"\" and line 0 and the signal's name in finding.\n"
         "- risk_analysis: what could go wrong with the chosen mode, one item each.\n";
}

std::string GeometryText(const Evidence& e) {
  const StaticEvidence& s = e.statics;
  const uint32_t nodes = e.nodes != 0 ? e.nodes : static_cast<uint32_t>(std::max(s.nodes, 0));
  std::string out = "Nodes the job will run on: " + (nodes ? std::to_string(nodes) : "unknown");
  out += ". Batch script: --nodes " + (s.nodes ? std::to_string(s.nodes) : "not given") + ", --ntasks " +
         (s.ntasks ? std::to_string(s.ntasks) : "not given") + ", --ntasks-per-node " +
         (s.ntasks_per_node ? std::to_string(s.ntasks_per_node) : "not given") + ".\n";
  if (!s.files_scanned.empty()) {
    out += "Files scanned (" + std::to_string(s.files_scanned.size()) + "): ";
    for (size_t i = 0; i < s.files_scanned.size() && i < kFilesListed; ++i) {
      out += (i ? ", " : "") + Clip(s.files_scanned[i], kPromptSnippetBytes);
    }
    if (s.files_scanned.size() > kFilesListed) out += ", ...";
    out += "\n";
  }
  return out;
}

std::string LaunchesText(const StaticEvidence& s) {
  if (s.launches.empty()) return "";
  std::string out = "Launches, in the order the batch shell runs them:\n";
  for (size_t i = 0; i < s.launches.size() && i < static_cast<size_t>(kPromptLaunches); ++i) {
    const Launch& l = s.launches[i];
    std::string argv;
    for (const std::string& a : l.argv) argv += (argv.empty() ? "" : " ") + a;
    out += "- step " + std::to_string(l.step) + ": " +
           (l.launcher.empty() ? std::string("run once by the batch shell") : l.launcher);
    if (l.nodes) out += ", nodes " + std::to_string(l.nodes);
    if (l.tasks) out += ", tasks " + std::to_string(l.tasks);
    if (l.tasks_per_node) out += ", tasks per node " + std::to_string(l.tasks_per_node);
    if (!l.distribution.empty()) out += ", distribution " + l.distribution;
    out += ": " + Clip(argv, kPromptSnippetBytes) + " (" + l.file + ":" + std::to_string(l.line) + ")\n";
  }
  if (s.launches.size() > static_cast<size_t>(kPromptLaunches)) {
    out += "- ... and " + std::to_string(s.launches.size() - kPromptLaunches) + " more\n";
  }
  return out;
}

// The findings of one fact: a header with the count, the largest value and the meaning, then
// up to kPromptFindingsPerFact quotes while `quoted` stays under kPromptFindings.
std::string FactText(std::string_view fact, const std::vector<const Finding*>& of, int& quoted) {
  const FactInfo* info = FindFact(fact);
  double largest = of.front()->value;
  for (const Finding* f : of) largest = std::max(largest, f->value);
  std::string out = "- " + std::string(fact) + " (" + std::to_string(of.size()) + " found";
  // A value of 1 is only the strength of a plain finding; a count or size says more.
  if (info && info->value_unit[0] != '\0' && largest != 1) {
    out += ", largest " + WithUnit(largest, info->value_unit);
  }
  out += std::string("): ") + (info ? info->description : "") + "\n";
  int here = 0;
  for (const Finding* f : of) {
    if (here == kPromptFindingsPerFact || quoted == kPromptFindings) break;
    out += "  " + Clip(f->file, kPromptSnippetBytes) + ":" + std::to_string(f->line) + " " + std::string(fact) + " — " +
           Clip(f->snippet, kPromptSnippetBytes) + "\n";
    ++here, ++quoted;
  }
  if (static_cast<size_t>(here) < of.size()) {
    out += "  (" + std::to_string(of.size() - here) + " more not quoted)\n";
  }
  return out;
}

}  // namespace

std::string FindingsText(const StaticEvidence& s, size_t cap) {
  if (s.findings.empty()) return "";
  std::vector<std::string> order;  // facts in the order first found
  std::map<std::string, std::vector<const Finding*>, std::less<>> by_fact;
  for (const Finding& f : s.findings) {
    auto& of = by_fact[f.fact];
    if (of.empty()) order.push_back(f.fact);
    of.push_back(&f);
  }
  std::string out = "Static findings, by fact (file:line fact — source line):\n";
  if (out.size() + kAlsoFoundReserve > cap) return "";
  // Facts quoted in order while they fit, room for the "also found" line kept while any is left.
  size_t i = 0;
  for (int quoted = 0; i < order.size(); ++i) {
    int q = quoted;
    const std::string text = FactText(order[i], by_fact.find(order[i])->second, q);
    const size_t reserve = i + 1 < order.size() ? kAlsoFoundReserve : 0;
    if (out.size() + text.size() + reserve > cap) break;
    out += text;
    quoted = q;
  }
  if (i == order.size()) return out;
  // The rest by name and count, as many as fit, then how many more.
  std::string line = "- also found, not quoted: ";
  size_t listed = i;
  for (; listed < order.size(); ++listed) {
    const std::string item =
        (listed > i ? ", " : "") + order[listed] + " x" + std::to_string(by_fact.find(order[listed])->second.size());
    const size_t tail = listed + 1 < order.size() ? kAlsoFoundTail : 1;  // ", and N more facts\n" or "\n"
    if (out.size() + line.size() + item.size() + tail > cap) break;
    line += item;
  }
  if (listed < order.size())
    line += (listed > i ? ", and " : "") + std::to_string(order.size() - listed) + " more facts";
  return out + line + "\n";
}

namespace {

std::string SignalsText(const Evidence& e) {
  if (e.signals.empty()) return "";
  std::string out = "Probe signals (name = value unit — meaning; where it came from):\n";
  for (const Signal& s : e.signals) {
    const SignalInfo* info = FindSignal(s.name);
    out += "- " + s.name + " = " + WithUnit(s.value, info ? info->unit : "") + " — " + (info ? info->description : "") +
           "; " + Clip(s.why, kWhyBytes) + "\n";
  }
  return out;
}

std::string MissingText(const Evidence& e) {
  std::vector<std::string> missing;
  if (!e.have_static) {
    missing.push_back("no job script or sources were analysed: there are no static findings");
  } else if (e.statics.findings.empty()) {
    missing.push_back("static analysis found no I/O facts in the files scanned");
  }
  if (e.have_static && e.statics.launches.empty()) {
    missing.push_back("the job script has no launch line");
  }
  if (!e.have_profile) {
    missing.push_back("no probe-run profile or Darshan log: there are no runtime signals");
  }
  if (e.nodes == 0 && e.statics.nodes <= 0) missing.push_back("the node count is unknown");
  std::string out = "Missing evidence:";
  if (missing.empty()) return out + " none.\n";
  for (const std::string& m : missing) out += "\n- " + m;
  return out + "\n";
}

std::string UserMessage(const Evidence& e, std::string_view rules_findings) {
  std::string out = "The job's evidence.\n\n" + GeometryText(e);
  for (const std::string& part :
       {LaunchesText(e.statics), FindingsText(e.statics, kPromptFindingsBytes), SignalsText(e)}) {
    if (!part.empty()) out += "\n" + part;
  }
  out += "\n" + MissingText(e);
  if (!rules_findings.empty()) {
    // Cut, not Clip: the text keeps its lines.
    const bool cut = rules_findings.size() > kPromptRulesBytes;
    out += "\nWhat the knowledge base's rules found (they could not decide alone):\n" +
           std::string(rules_findings.substr(0, kPromptRulesBytes)) + (cut ? "...\n" : "");
  }
  return out + "\nChoose the mode; answer with the JSON object only.";
}

}  // namespace

json DecisionSchema() {
  json scores_props = json::object();
  for (const char* m : {"1", "2", "3", "4"}) scores_props[m] = Probability();
  const json evidence_item = {{"type", "object"},
                              {"properties",
                               {{"file", {{"type", "string"}}},
                                {"line", {{"type", "integer"}, {"minimum", 0}}},
                                {"finding", {{"type", "string"}}}}},
                              {"required", {"file", "line", "finding"}},
                              {"additionalProperties", false}};
  return {{"type", "object"},
          {"properties",
           {{"selected_mode", {{"type", "integer"}, {"enum", {1, 2, 3, 4}}}},
            {"confidence", Probability()},
            {"io_topology", {{"type", "string"}}},
            {"primary_reason", {{"type", "string"}}},
            {"risk_analysis", {{"type", "array"}, {"items", {{"type", "string"}}}}},
            {"evidence", {{"type", "array"}, {"items", evidence_item}}},
            {"scores",
             {{"type", "object"},
              {"properties", scores_props},
              {"required", {"1", "2", "3", "4"}},
              {"additionalProperties", false}}}}},
          {"required",
           {"selected_mode", "confidence", "io_topology", "primary_reason", "risk_analysis", "evidence", "scores"}},
          {"additionalProperties", false}};
}

json BuildChatRequest(const Evidence& evidence, const KnowledgeBase& kb, const LlmOptions& options,
                      std::string_view rules_findings) {
  return {{"model", options.model},
          {"messages",
           {{{"role", "system"}, {"content", SystemMessage(kb)}},
            {{"role", "user"}, {"content", UserMessage(evidence, rules_findings)}}}},
          {"temperature", 0},
          {"max_tokens", options.max_tokens},
          {"stream", false},
          {"response_format",
           {{"type", "json_schema"},
            {"json_schema", {{"name", "mode_decision"}, {"strict", true}, {"schema", DecisionSchema()}}}}}};
}

}  // namespace bb::modeselect
