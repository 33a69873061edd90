// Making a calibration (knowledge.h: Calibration) from a labelled corpus: `bb-modeselect
// calibrate`. Every case is read three ways (static and profile evidence together, each alone,
// as the evaluation does); the rule that carries the rules' pick in a reading puts the case in
// that rule's group (a case is in a group once, however many readings put it there). A group's
// per-mode figures come from the oracle's medians: a mode's slowdown on a case is its median
// cost over the case's best unbroken mode's, a mode the oracle disqualified counts as broken,
// and a mode is right on a case when it is the label or tied with it.
//
// The confidence map is fitted on leave-one-out decisions: each case's readings decided with
// the groups of every other case (the decision never sees its own label), and whether the
// decided mode was right.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "modeselect/eval.h"
#include "modeselect/knowledge.h"

namespace bb::modeselect {

// Which group (carrier rule id, "" for none) each case's readings put it in, by case.
std::vector<std::vector<std::string>> CaseGroups(const std::vector<EvalCase>& cases, const KnowledgeBase& kb);

// The groups of `cases` (by rule id, ascending), leaving out case `left_out` (-1: none).
std::vector<SlowdownGroup> BuildGroups(const std::vector<EvalCase>& cases,
                                       const std::vector<std::vector<std::string>>& groups_of, int left_out);

// The calibration of every case: its groups, and the confidence map of the leave-one-out
// decisions (above). `source` says what it was measured on.
Calibration Calibrate(const std::vector<EvalCase>& cases, const KnowledgeBase& kb, const std::string& source);

// The calibration case `i`'s decisions are made with when the corpus is evaluated: every other
// case's groups, and `full`'s confidence map (the map only says how sure; the decision does not
// read it).
Calibration LeaveOneOut(const std::vector<EvalCase>& cases, const std::vector<std::vector<std::string>>& groups_of,
                        int i, const Calibration& full);

}  // namespace bb::modeselect
