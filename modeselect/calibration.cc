#include "modeselect/calibration.h"

#include <algorithm>
#include <cmath>

namespace bb::modeselect {

const SlowdownGroup* FindGroup(const Calibration& c, std::string_view carrier) {
  for (const SlowdownGroup& g : c.groups) {
    if (g.rule == carrier) return &g;
  }
  return nullptr;
}

std::array<ModeEstimate, 4> EstimateModes(const Calibration& c, std::string_view carrier, int pick,
                                          const DecisionSettings& s) {
  const SlowdownGroup* g = FindGroup(c, carrier);
  const double k = s.prior_jobs;
  std::array<ModeEstimate, 4> out{};
  for (int m = 0; m < 4; ++m) {
    double log_sum = k * (m + 1 == pick ? 0 : std::log(s.prior_slowdown));
    double right = k / 2, n = k;
    if (g != nullptr) {
      log_sum += g->ran[m] * std::log(g->slowdown[m]) + g->broke[m] * std::log(s.break_slowdown);
      n += g->ran[m] + g->broke[m];
      right += g->right[m];
      out[m].jobs = g->ran[m] + g->broke[m];
    }
    out[m].slowdown = n > 0 ? std::exp(log_sum / n) : 1;
    out[m].right = n > 0 ? right / n : 0.5;
  }
  return out;
}

double CalibratedConfidence(const Calibration& c, double raw) {
  if (c.confidence.empty()) return raw;
  double out = c.confidence.front().right;
  for (const ConfidenceStep& step : c.confidence) {
    if (step.raw <= raw) out = step.right;
  }
  return out;
}

std::vector<ConfidenceStep> FitConfidence(std::vector<std::pair<double, bool>> points) {
  std::sort(points.begin(), points.end());
  struct Block {
    double raw;    // the smallest raw confidence in the block
    double right;  // right decisions in the block
    int n;
    // The share right with one right and one wrong decision added: a few decisions, all right,
    // read as likely rather than certain.
    double Share() const { return (right + 1) / (n + 2); }
  };
  std::vector<Block> blocks;
  for (size_t i = 0; i < points.size();) {
    Block b{points[i].first, 0, 0};
    for (; i < points.size() && points[i].first == b.raw; ++i) b.right += points[i].second, b.n++;
    blocks.push_back(b);
    // Pool while a block's share right is below the one before it.
    while (blocks.size() > 1 && blocks[blocks.size() - 2].Share() >= blocks.back().Share()) {
      Block& a = blocks[blocks.size() - 2];
      a.right += blocks.back().right, a.n += blocks.back().n;
      blocks.pop_back();
    }
  }
  std::vector<ConfidenceStep> out;
  for (const Block& b : blocks) out.push_back({b.raw, b.Share(), b.n});
  return out;
}

std::string ConfidenceMeaning(const Calibration& c) {
  if (c.empty() || c.confidence.empty()) {
    return "not calibrated (the knowledge base has no calibration): 1 - exp(-margin), margin being the rules' "
           "lead of the selected mode over the next";
  }
  return "how often decisions like this one were right: among the corpus's decisions of this raw confidence "
         "(each made without its own job's label), the share whose mode was the best or statistically tied; "
         "calibrated on " +
         c.source;
}

bool SameCalibration(const Calibration& a, const Calibration& b) {
  if (a.jobs != b.jobs || a.groups.size() != b.groups.size() || a.confidence.size() != b.confidence.size()) {
    return false;
  }
  for (size_t i = 0; i < a.groups.size(); ++i) {
    const SlowdownGroup &x = a.groups[i], &y = b.groups[i];
    if (x.rule != y.rule || x.jobs != y.jobs || x.ran != y.ran || x.broke != y.broke || x.right != y.right)
      return false;
    for (int m = 0; m < 4; ++m) {
      if (std::fabs(x.slowdown[m] - y.slowdown[m]) > 0.005 * std::max(x.slowdown[m], y.slowdown[m])) return false;
    }
  }
  for (size_t i = 0; i < a.confidence.size(); ++i) {
    const ConfidenceStep &x = a.confidence[i], &y = b.confidence[i];
    if (std::fabs(x.raw - y.raw) > 0.005 || std::fabs(x.right - y.right) > 0.005 || x.decisions != y.decisions) {
      return false;
    }
  }
  return true;
}

}  // namespace bb::modeselect
