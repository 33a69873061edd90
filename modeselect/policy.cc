#include "modeselect/policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bb::modeselect {
namespace {

// Two modes other than 3 that different rules favour, close in score, one of them the pick.
std::string VoteConflict(const PolicyInput& in, const std::array<bool, 4>& allowed, double margin) {
  const int p = in.rules_pick;
  if (p == 3) return "";
  for (const RuleFavourite& q : in.favourites) {
    if (q.mode == 0 || q.mode == 3 || q.mode == p || !allowed[q.mode - 1]) continue;
    if (in.score[p - 1] - in.score[q.mode - 1] >= margin) continue;
    for (const RuleFavourite& r : in.favourites) {
      if (r.rule != q.rule && r.mode == p) {
        return "rule " + r.rule + " favours mode " + std::to_string(p) + " and rule " + q.rule + " mode " +
               std::to_string(q.mode) + ", within the conflict margin of each other";
      }
    }
  }
  return "";
}

std::string ReadingConflict(const PolicyInput& in) {
  if (in.static_reading == 0 || in.profile_reading == 0 || in.static_reading == 3 || in.profile_reading == 3 ||
      in.static_reading == in.profile_reading) {
    return "";
  }
  return "the static findings alone point to mode " + std::to_string(in.static_reading) +
         " and the probe profile alone to mode " + std::to_string(in.profile_reading);
}

// The allowed mode (1..4) of the highest `score`, mode 3 winning ties.
int Reading(const std::array<double, 4>& score, const std::array<bool, 4>& allowed) {
  int best = 2;
  for (int m = 0; m < 4; ++m) {
    if (allowed[m] && score[m] > score[best]) best = m;
  }
  return best + 1;
}

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// `d` with its confidence put in words: how often such decisions were right on the corpus.
Decision InWords(const Calibration& c, Decision* d) {
  if (!c.empty() && !c.confidence.empty()) {
    d->confidence_meaning = "right about " + std::to_string(static_cast<int>(std::lround(10 * d->confidence))) +
                            " in 10 of the corpus's leave-one-out decisions at this confidence (" +
                            d->confidence_meaning + ")";
  }
  return *d;
}

int Favourite(const Rule& r) {
  int best = -1;
  for (int m = 0; m < 4; ++m) {
    if (r.votes[m] > 0 && (best < 0 || r.votes[m] > r.votes[best])) best = m;
  }
  return best + 1;
}

}  // namespace

PolicyChoice ChooseMode(const PolicyInput& in, const DecisionSettings& settings) {
  std::array<bool, 4> allowed = in.allowed;
  allowed[2] = true;  // distributed hashing is correct for any job
  const auto& e = in.expected_slowdown;
  auto even = [&](int a, int b) { return std::fabs(e[a] - e[b]) <= settings.even_within * std::min(e[a], e[b]); };
  // Mode 3 first: a mode must beat it clearly; among the others, a clear win or an even one of
  // a higher score.
  int best = 2;
  for (int m : {0, 1, 3}) {
    if (!allowed[m]) continue;
    const bool beats = e[m] < e[best] && !even(m, best);
    if (beats || (best != 2 && even(m, best) && in.score[m] > in.score[best])) best = m;
  }
  PolicyChoice c;
  c.lowest = best + 1;
  c.mode = c.lowest;
  c.why = VoteConflict(in, allowed, settings.conflict_margin);
  if (c.why.empty()) c.why = ReadingConflict(in);
  c.conflict = !c.why.empty();
  if (c.conflict) c.mode = 3;
  return c;
}

RulesDecision DecideByRules(const RulesAnalysis& main, const RulesAnalysis* static_only,
                            const RulesAnalysis* profile_only, const Calibration& calibration,
                            const KnowledgeBase& kb) {
  RulesDecision d;
  PolicyInput& in = d.input;
  in.score = main.score;
  in.allowed = main.allowed;
  in.allowed[2] = true;
  in.rules_pick = main.pick;
  for (const Rule* r : main.fired) in.favourites.push_back({r->id, Favourite(*r)});
  if (static_only != nullptr && profile_only != nullptr) {
    in.static_reading = Reading(static_only->score, in.allowed);
    in.profile_reading = Reading(profile_only->score, in.allowed);
  }
  d.estimate = EstimateModes(calibration, main.carrier ? main.carrier->id : "", main.pick, kb.decision);
  for (int m = 0; m < 4; ++m) in.expected_slowdown[m] = d.estimate[m].slowdown;
  d.choice = ChooseMode(in, kb.decision);
  if (calibration.empty()) {
    const double margin = main.evidence_moved ? 1 - std::exp(-std::max(main.margin, 0.0) / kb.confidence_scale) : 0;
    d.own_confidence = d.choice.lowest == main.pick ? margin : 0;
    d.raw_confidence = d.confidence = d.choice.conflict ? 0 : d.own_confidence;
    return d;
  }
  d.raw_confidence = d.estimate[d.choice.mode - 1].right;
  d.confidence = CalibratedConfidence(calibration, d.raw_confidence);
  d.own_confidence = CalibratedConfidence(calibration, d.estimate[d.choice.lowest - 1].right);
  return d;
}

Decision DecisionOf(const RulesAnalysis& a, const RulesDecision& rd, const Evidence& e, const KnowledgeBase& kb) {
  Decision d = RulesDecisionOf(a, e, kb);
  d.confidence_meaning = ConfidenceMeaning(kb.calibration);
  const int own = rd.choice.lowest;
  if (own != a.pick) {
    const ModeEstimate &o = rd.estimate[own - 1], &p = rd.estimate[a.pick - 1];
    d.primary_reason = "the rules' highest score is mode " + std::to_string(a.pick) + " (" + d.primary_reason +
                       "), but on the corpus's " + std::to_string(o.jobs) + " jobs like this one mode " +
                       std::to_string(own) + " ran closer to the best: expected slowdown " + Fixed2(o.slowdown) +
                       " against " + Fixed2(p.slowdown);
  }
  d.mode = own;
  d.confidence = rd.own_confidence;
  if (!rd.choice.conflict) return InWords(kb.calibration, &d);
  d.own_mode = own;
  d.own_confidence = rd.own_confidence;
  d.own_by = "rules";
  d.mode = 3;
  d.confidence = rd.confidence;
  d.selected_by = "fallback";
  d.primary_reason = "the evidence conflicts: " + rd.choice.why +
                     "; mode 3 is correct for any job (the rules' own pick: mode " + std::to_string(own) +
                     " at confidence " + Fixed2(rd.own_confidence) + ")";
  return InWords(kb.calibration, &d);
}

RulesDecision DecideEvidence(const Evidence& e, const Calibration& calibration, const KnowledgeBase& kb,
                             RulesAnalysis* analysis) {
  const RulesAnalysis main = AnalyzeRules(e, kb);
  if (analysis != nullptr) *analysis = main;
  if (!e.have_static || !e.have_profile) return DecideByRules(main, nullptr, nullptr, calibration, kb);
  // Each kind alone: the static findings without the signals, and the signals without them.
  Evidence statics = e, profile = e;
  statics.have_profile = false;
  statics.signals.clear();
  profile.have_static = false;
  profile.statics = StaticEvidence{};
  const RulesAnalysis s = AnalyzeRules(statics, kb), p = AnalyzeRules(profile, kb);
  return DecideByRules(main, &s, &p, calibration, kb);
}

}  // namespace bb::modeselect
