// Private to burst*.cc: the Prolog's parts on the first node (and in mode 1 on every node): its
// clock against Slurm's time limit, stage-in, and the mode file.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>

#include "fs/base/status.h"
#include "tools/bbctl/slurm/burst.h"
#include "tools/bbctl/slurm/burst_job.h"
#include "tools/jobs/bb_directives.h"
#include "tools/jobs/stage_limit.h"

namespace bb::ctl {

// The Prolog's clock: its stage limit (0: none), asked of Slurm once and only when needed, and
// what is left of it.
class PrologClock {
  using Clock = std::chrono::steady_clock;

 public:
  explicit PrologClock(const BurstOptions& o) : o_(o), started_(Clock::now()) {}
  double Limit() {
    if (limit_ < 0) limit_ = StageLimit(o_);
    return limit_;
  }
  double Left() { return jobs::StageTimeLeft(Limit(), std::chrono::duration<double>(Clock::now() - started_).count()); }
  // `wanted_s`, or less when the limit comes first.
  int Wait(int wanted_s) { return Limit() > 0 ? std::min(wanted_s, static_cast<int>(Left())) : wanted_s; }

 private:
  const BurstOptions& o_;
  Clock::time_point started_;
  double limit_ = -1;
};

// This node's stage-in: every stage_in directive (a type=list expanded), as the job's user. Within
// the Prolog's limit, a stage-in the expected rate cannot move in time is refused before anything
// is copied, and a copy still running when the time is up is stopped.
Status StageIn(const BurstOptions& o, const BurstJob& j, const jobs::BbRequest& req, PrologClock* clock);
// Mode 1 on several nodes, first node: waits until every other node staged its own copy in.
Status WaitForNodesStagingIn(const BurstJob& j, PrologClock* clock);
// "mode 3 (asked)", or "mode 2 (mode=auto: REASON)" from the mode file, and for mode=auto the
// evidence the selector had (state/evidence).
std::string ModeSummary(const std::string& mode_file, int asked, const std::string& evidence_file);
// The first node's mode file: the directives' mode, or mode=auto's choice by the selector, which
// reads the user's sources as the user, from the script and the profile of an earlier run of it
// on as many nodes (burst_history.h); mode 3 when it fails. The selector reads its copy of the
// script from, and writes the mode file into, the user's folder on this node (UserScratch); root
// copies the mode file into the state folder, which may be root-squashed.
void WriteModeFile(const BurstJob& j, const jobs::BbRequest& req, const std::string& script_text,
                   const std::string& mode_file);

}  // namespace bb::ctl
