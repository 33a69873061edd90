// The knowledge base's calibration.yaml: what the corpus measured, as the decision rule reads it
// (modeselect/knowledge.h: Calibration). Written by `bb-modeselect calibrate`; a knowledge base
// without the file is not calibrated. Format:
//
//   source: TEXT               what it was measured on
//   jobs: N                    corpus jobs
//   groups:                    per rule that carried the rules' pick on some job
//     - rule: ID               ("" = no rule: mode 3 by default)
//       jobs: [NAME, ...]
//       slowdown: {1: X, ...}  geometric mean of each mode's time over the best (>= 0)
//       ran: {1: N, ...}       jobs each mode ran; broke: {...} jobs it broke; right: {...}
//   confidence:                the confidence map, ascending by raw
//     - {raw: X, right: X, decisions: N}
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "fs/base/status.h"
#include "modeselect/knowledge.h"

namespace bb::config {

// EINVAL "<source>:<line>: ..." naming the field for an unknown field, a mode that is not 1..4,
// a count below 0 or above `jobs`, a share outside 0..1, and steps not ascending by raw.
Result<modeselect::Calibration> ParseCalibration(const std::string& text, const std::string& source);
// `c` in the format above, after `header` (comment lines, each starting with '#').
std::string FormatCalibration(const modeselect::Calibration& c, const std::string& header);

}  // namespace bb::config
