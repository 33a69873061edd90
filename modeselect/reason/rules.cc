#include "modeselect/reason/rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "modeselect/policy.h"

namespace bb::modeselect {
namespace {

struct OpText {
  const char* text;
  Condition::Op op;
};
// Two-character operators first, so ">=" is not read as ">".
constexpr OpText kOps[] = {{">=", Condition::Op::kGe}, {"<=", Condition::Op::kLe}, {"==", Condition::Op::kEq},
                           {"!=", Condition::Op::kNe}, {">", Condition::Op::kGt},  {"<", Condition::Op::kLt}};

std::string Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string_view::npos ? "" : std::string(s.substr(a, b - a + 1));
}

bool Compare(double x, Condition::Op op, double v) {
  switch (op) {
    case Condition::Op::kGe:
      return x >= v;
    case Condition::Op::kGt:
      return x > v;
    case Condition::Op::kLe:
      return x <= v;
    case Condition::Op::kLt:
      return x < v;
    case Condition::Op::kEq:
      return x == v;
    case Condition::Op::kNe:
      return x != v;
    default:
      return false;
  }
}

// The subject of `name`: a fact or a signal. EINVAL when it is neither.
Status Classify(const std::string& name, std::string_view text, Condition* c) {
  if (FactKnown(name)) {
    c->kind = Condition::Kind::kFact;
  } else if (FindSignal(name) != nullptr) {
    c->kind = Condition::Kind::kSignal;
  } else {
    return Status(EINVAL, "condition '" + std::string(text) + "': '" + name + "' is neither a fact nor a signal");
  }
  c->subject = name;
  return Status::Ok();
}

double FactMeasure(const Evidence& e, const std::string& fact, Condition::Of of) {
  double count = 0, max = 0;
  for (const Finding& f : e.statics.findings) {
    if (f.fact != fact) continue;
    count += 1;
    max = std::max(max, f.value);
  }
  return of == Condition::Of::kCount ? count : max;
}

}  // namespace

Result<Condition> ParseCondition(std::string_view text) {
  Condition c;
  c.text = Trim(text);
  std::string s = c.text;
  for (const OpText& o : kOps) {
    size_t at = s.find(o.text);
    if (at == std::string::npos) continue;
    std::string left = Trim(s.substr(0, at)), right = Trim(s.substr(at + std::string(o.text).size()));
    char* end = nullptr;
    c.value = std::strtod(right.c_str(), &end);
    if (right.empty() || end == nullptr || *end != '\0') {
      return Status(EINVAL, "condition '" + c.text + "': '" + right + "' is not a number");
    }
    c.op = o.op;
    for (auto [prefix, of] : {std::pair{"count(", Condition::Of::kCount}, std::pair{"max(", Condition::Of::kMax}}) {
      if (left.rfind(prefix, 0) == 0 && left.back() == ')') {
        c.of = of;
        BB_RETURN_IF_ERROR(
            Classify(left.substr(std::string(prefix).size(), left.size() - std::string(prefix).size() - 1), text, &c));
        if (c.kind != Condition::Kind::kFact)
          return Status(EINVAL, "condition '" + c.text + "': count() and max() take a fact");
        return c;
      }
    }
    BB_RETURN_IF_ERROR(Classify(left, text, &c));
    if (c.kind == Condition::Kind::kFact) {
      return Status(EINVAL,
                    "condition '" + c.text + "': compare a fact through count(" + left + ") or max(" + left + ")");
    }
    return c;
  }
  bool negated = !s.empty() && s[0] == '!';
  c.op = negated ? Condition::Op::kAbsent : Condition::Op::kPresent;
  BB_RETURN_IF_ERROR(Classify(Trim(negated ? s.substr(1) : s), text, &c));
  return c;
}

bool Evaluate(const Condition& c, const Evidence& e) {
  if (c.kind == Condition::Kind::kFact) {
    if (c.op == Condition::Op::kPresent) return FactMeasure(e, c.subject, Condition::Of::kCount) > 0;
    if (c.op == Condition::Op::kAbsent) return FactMeasure(e, c.subject, Condition::Of::kCount) == 0;
    return Compare(FactMeasure(e, c.subject, c.of), c.op, c.value);
  }
  const Signal* s = e.Find(c.subject);
  if (c.op == Condition::Op::kPresent) return s != nullptr && s->value != 0;
  if (c.op == Condition::Op::kAbsent) return s == nullptr || s->value == 0;
  return s != nullptr && Compare(s->value, c.op, c.value);
}

bool Fires(const Rule& r, const Evidence& e) {
  for (const Condition& c : r.all) {
    if (!Evaluate(c, e)) return false;
  }
  if (r.any.empty()) return true;
  return std::any_of(r.any.begin(), r.any.end(), [&](const Condition& c) { return Evaluate(c, e); });
}

}  // namespace bb::modeselect

namespace bb::modeselect {
namespace {

constexpr size_t kMaxEvidence = 16;

// What the conditions of a fired rule looked at, as decision evidence.
void Cite(const Rule& r, const Evidence& e, std::vector<EvidenceRef>* out, std::set<std::string>* seen) {
  auto cite_one = [&](const Condition& c) {
    if (!Evaluate(c, e) || out->size() >= kMaxEvidence) return;
    if (c.kind == Condition::Kind::kSignal) {
      const Signal* s = e.Find(c.subject);
      if (s == nullptr || !seen->insert(s->name).second) return;
      std::ostringstream v;
      v << s->name << " = " << s->value << (s->why.empty() ? "" : ": " + s->why);
      out->push_back({"", 0, v.str()});
      return;
    }
    if (c.op == Condition::Op::kAbsent) return;
    int taken = 0;
    for (const Finding& f : e.statics.findings) {
      if (f.fact != c.subject || taken >= 2) continue;
      std::string key = f.file + ":" + std::to_string(f.line) + ":" + f.fact;
      if (!seen->insert(key).second) continue;
      const FactInfo* info = FindFact(f.fact);
      out->push_back({f.file, f.line, f.fact + " (" + (info ? info->description : "") + "): " + f.snippet});
      ++taken;
    }
  };
  for (const Condition& c : r.all) cite_one(c);
  for (const Condition& c : r.any) cite_one(c);
}

std::array<double, 4> Softmax(const std::array<double, 4>& score, const std::array<bool, 4>& allowed) {
  std::array<double, 4> out{};
  double top = *std::max_element(score.begin(), score.end()), sum = 0;
  for (int m = 0; m < 4; ++m) sum += out[m] = allowed[m] ? std::exp(score[m] - top) : 0;
  for (double& v : out) v = sum > 0 ? v / sum : 0;
  return out;
}

// The fired rule that gives `mode` (1..4) the most, or null.
const Rule* Carrier(const std::vector<const Rule*>& fired, int mode) {
  const Rule* carrier = nullptr;
  for (const Rule* r : fired) {
    if (r->votes[mode - 1] > 0 && (carrier == nullptr || r->votes[mode - 1] > carrier->votes[mode - 1])) carrier = r;
  }
  return carrier;
}

bool Moves(const Rule& r) {
  return std::any_of(r.votes.begin(), r.votes.end(), [](double v) { return v != 0; }) ||
         std::any_of(r.excludes.begin(), r.excludes.end(), [](bool x) { return x; });
}

}  // namespace

RulesAnalysis AnalyzeRules(const Evidence& e, const KnowledgeBase& kb) {
  RulesAnalysis a;
  a.score = {0, 0, kb.prior_mode3, 0};
  std::array<bool, 4> excluded{};
  bool clears = false;
  for (const Rule& r : kb.rules) {
    if (!Fires(r, e)) continue;
    a.fired.push_back(&r);
    clears = clears || r.rules_out_cross_node;
    a.evidence_moved = a.evidence_moved || Moves(r);
    for (int m = 0; m < 4; ++m) {
      a.score[m] += r.votes[m];
      excluded[m] = excluded[m] || r.excludes[m];
    }
  }
  a.cross_node_ruled_out = clears && !excluded[0];
  for (int m = 0; m < 4; ++m) a.allowed[m] = !excluded[m];
  a.allowed[0] = a.cross_node_ruled_out;
  int best = -1;  // mode 3 wins ties and stands when everything is ruled out
  for (int m = 0; m < 4; ++m) {
    if (!a.allowed[m]) continue;
    if (best < 0 || a.score[m] > a.score[best] || (a.score[m] == a.score[best] && m == 2)) best = m;
  }
  a.pick = best < 0 ? 3 : best + 1;
  double second = -1e300;
  for (int m = 0; m < 4; ++m) {
    if (m != a.pick - 1 && a.allowed[m]) second = std::max(second, a.score[m]);
  }
  a.margin = second < -1e299 ? std::max(a.score[a.pick - 1], 1.0) : a.score[a.pick - 1] - second;
  a.carrier = Carrier(a.fired, a.pick);
  return a;
}

Result<Decision> RulesReasoner::Decide(const Evidence& e, const KnowledgeBase& kb) {
  RulesAnalysis a;
  const RulesDecision rd = DecideEvidence(e, kb.calibration, kb, &a);
  return DecisionOf(a, rd, e, kb);
}

Decision RulesDecisionOf(const RulesAnalysis& a, const Evidence& e, const KnowledgeBase& kb) {
  Decision d;
  d.selected_by = "rules";
  d.mode = a.pick;
  d.confidence = a.evidence_moved ? 1 - std::exp(-std::max(a.margin, 0.0) / kb.confidence_scale) : 0;
  d.scores = Softmax(a.score, a.allowed);
  std::set<std::string> seen;
  for (const Rule* r : a.fired) {
    d.rules_fired.push_back(r->id);
    Cite(*r, e, &d.evidence, &seen);
    if (!r->risk.empty() &&
        std::find(d.risk_analysis.begin(), d.risk_analysis.end(), r->risk) == d.risk_analysis.end()) {
      d.risk_analysis.push_back(r->risk);
    }
  }
  if (a.carrier != nullptr) {
    d.primary_reason = a.carrier->reason.empty() ? a.carrier->description : a.carrier->reason;
    d.io_topology = a.carrier->topology;
  } else {
    d.primary_reason = a.fired.empty() ? "no rule of the knowledge base matched the evidence"
                                       : "no rule favours another mode; distributed hashing suits any job";
  }
  for (const Rule* r : a.fired) {
    if (d.io_topology.empty()) d.io_topology = r->topology;
  }
  if (d.io_topology.empty()) d.io_topology = "unknown";
  return d;
}

}  // namespace bb::modeselect
