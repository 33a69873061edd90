// Staging inside Slurm's Prolog and Epilog, within their time limit (slurm.conf's
// PrologEpilogTimeout): a hook Slurm has to kill drains its node. The hooks know the limit, the
// bytes to move and the rate the site expects staging to reach (bb-slurm.env's BB_STAGE_RATE),
// and refuse a stage-in that would not fit before they start it; what runs anyway stops at the
// limit. Pure: the hooks (tools/bbctl/slurm/) feed it Slurm's configuration and the sizes.
#pragma once

#include <cstdint>
#include <string>

namespace bb::jobs {

// PrologEpilogTimeout in seconds from `scontrol show config`'s text; 0 when there is none (the
// line is missing, or Slurm's "wait indefinitely", 65534 and up).
double PrologEpilogTimeoutFrom(const std::string& show_config);

// What a hook keeps back of the limit for its own steps before and after staging: a quarter of
// it, at most 10 s.
double StageMargin(double limit_s);

// The stage's time left: the limit less the margin and what the hook spent already (never
// below 0). `limit_s` 0: no limit (returns a day).
double StageTimeLeft(double limit_s, double spent_s);

// Empty when staging `bytes` in at `rate` (bytes/s) fits in `left_s` of the Prolog's `limit_s`
// (or there is no limit, or no rate); else why not, for the job's output: "stage_in of 1.2 GiB
// needs about 12 s at 100 MiB/s (BB_STAGE_RATE), more than the 5 s the Prolog has left of its
// 20 s limit (PrologEpilogTimeout); ...".
std::string StageInRefusal(uint64_t bytes, uint64_t rate, double left_s, double limit_s);

}  // namespace bb::jobs
