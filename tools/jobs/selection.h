// What a run of the mode selector for `bbctl job run --select` means: its decision, or mode 3
// and why there is none. The job never fails because of the selector: a selector that could not
// start, failed, crashed, ran past its deadline or printed no usable decision gives mode 3
// (distributed hashing, correct for any job), and the reason is shown with the job's outcome.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace bb::jobs {

// What running the selector gave (bbctl runs it; tools/bbctl/job_run.cc).
struct SelectorRun {
  std::string error;       // it gave no run at all (no profile to read, or it could not start): why
  bool timed_out = false;  // it was killed at its deadline
  double deadline_s = 0;
  int exit_status = 0;  // its exit status, when it exited
  int signal = 0;       // the signal that ended it, when one did (not at the deadline)
  std::string output;   // its standard output: the decision, one JSON object (--json)
  std::string errors;   // its standard error (the end is shown)
  // The mode of the mode file it wrote (--out), when that file loads; else why not.
  std::optional<int> mode_file_mode;
  std::string mode_file_error;
};

struct Selection {
  int mode = 3;
  bool fallback = true;  // mode 3 because the selector gave no decision
  std::string selected_by = "fallback";
  double confidence = 0;
  std::string reason;       // the decision's primary reason, or why there is no decision
  nlohmann::json decision;  // the selector's decision; null on fallback
};

// The selection `run` gives: the selector's decision when it exited 0, printed a JSON object
// whose selected_mode is 1 to 4, and wrote a mode file of that mode; else mode 3 with the
// reason (the first problem found).
Selection TakeDecision(const SelectorRun& run);

}  // namespace bb::jobs
