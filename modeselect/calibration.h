// What the decision rule reads from a knowledge base's calibration (knowledge.h: SlowdownGroup,
// ConfidenceStep, Calibration): per mode, the expected slowdown and the expected share right for
// a job whose rules' pick was carried by a given rule, and the calibrated confidence of a raw one.
//
// The estimate is a shrunken mean. The carrier's group holds n corpus jobs; the rules' own view
// counts as DecisionSettings::prior_jobs (k) more, in which the rules' pick ran fastest and every
// other mode prior_slowdown times slower, and every mode was right half the time:
//   log slowdown(m) = (sum over the group's jobs of log slowdown_j(m) + k log prior(m)) / (n + k)
//   right(m)        = (jobs where m was right + k / 2) / (n + k)
// where a mode that broke a job counts as DecisionSettings::break_slowdown and jobs on which m
// was not measured count for neither. With no group (a rule the corpus never saw carry a pick),
// the rules' view alone decides.
//
// The confidence map is isotonic: raw confidences (the share right above) of the corpus's own
// decisions, each made without its job's label, against whether they were right, fitted with
// pool-adjacent-violators into an increasing step function. A step's share right counts one
// right and one wrong decision more than it holds ((right + 1) / (decisions + 2)), so a few
// decisions, all right, read as likely rather than certain.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modeselect/knowledge.h"

namespace bb::modeselect {

struct ModeEstimate {
  double slowdown = 1;  // expected time over the best mode's
  double right = 0.5;   // expected share of jobs on which the mode is the best or statistically tied
  int jobs = 0;         // corpus jobs behind it (0: the rules' view alone)
};

// The group of `carrier` ("" = no rule carried the pick), or null.
const SlowdownGroup* FindGroup(const Calibration& c, std::string_view carrier);

// The estimates (above) for a job whose rules' pick `pick` (1..4) was carried by `carrier`.
std::array<ModeEstimate, 4> EstimateModes(const Calibration& c, std::string_view carrier, int pick,
                                          const DecisionSettings& s);

// The calibrated confidence of `raw`: the `right` of the last step whose `raw` is at most it
// (the first step's below them all); `raw` itself when `c` has no confidence map.
double CalibratedConfidence(const Calibration& c, double raw);

// The isotonic step function of (raw confidence, right) points (above), one step per pooled
// block, ascending by raw and by share right. Empty for no points.
std::vector<ConfidenceStep> FitConfidence(std::vector<std::pair<double, bool>> points);

// Whether `a` and `b` agree, up to the rounding of a calibration file: the same groups (rules,
// jobs and counts, slowdowns within 0.5 %) and confidence steps (within 0.005).
bool SameCalibration(const Calibration& a, const Calibration& b);

// What the confidence means, in one sentence for the output: calibrated on what, or why not.
std::string ConfidenceMeaning(const Calibration& c);

}  // namespace bb::modeselect
