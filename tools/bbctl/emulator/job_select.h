// The --select step of `bbctl job run`: the mode selector run on the probe run's profile, with a
// deadline, and its decision taken — or, when it gives none, mode 3 and why
// (tools/jobs/selection.h). Nothing here fails the job.
//
// Thread-safety: one call at a time per mode file.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tools/jobs/selection.h"

namespace bb::ctl {

// How long the selector may take: the rules reasoner decides in milliseconds; an LLM reasoner
// has its own deadline (60 s by default), well inside this one.
inline constexpr std::chrono::seconds kSelectorDeadline{120};

// Runs the selector `argv` — which writes its mode file to `mode_file` (--out) and prints its
// decision as one JSON object (--json) — and returns the selection. On fallback `mode_file` holds
// mode 3 with the reason (selected_by fallback) when it can be written.
jobs::Selection ChooseMode(const std::vector<std::string>& argv, const std::string& mode_file,
                           std::chrono::milliseconds deadline = kSelectorDeadline);

// The selection of `run` (the selector's run, or one that did not happen: run.error), as
// ChooseMode takes it: the mode file at `mode_file` is read, and written on fallback.
jobs::Selection TakeSelection(jobs::SelectorRun run, const std::string& mode_file);

}  // namespace bb::ctl
