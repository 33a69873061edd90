// Stage-in within the Prolog's time (burst_prolog.h).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "fs/base/units.h"
#include "tools/bbctl/proc.h"
#include "tools/bbctl/slurm/burst_prolog.h"

namespace bb::ctl {
namespace {

// Each stage directive as (source, destination) pairs, a type=list expanded.
Result<std::vector<std::pair<std::string, std::string>>> StagePairs(const std::vector<jobs::StageDirective>& ds,
                                                                    const BurstJob& j, bool in) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& src, const std::string& dst) {
    if (in) {
      out.emplace_back(jobs::OutsidePath(src, j.slurm.work_dir), jobs::InsidePath(dst, j.workspace));
    } else {
      out.emplace_back(jobs::InsidePath(src, j.workspace), jobs::OutsidePath(dst, j.slurm.work_dir));
    }
  };
  for (const auto& d : ds) {
    if (d.type != jobs::StageType::kList) {
      add(d.source, d.destination);
      continue;
    }
    std::string list = jobs::OutsidePath(d.source, j.slurm.work_dir);
    auto text = Capture(AsUser(j, {"cat", "--", list}));  // read as the job's user
    if (!text) return Status(ENOENT, "stage list " + list + " cannot be read");
    BB_ASSIGN_OR_RETURN(auto pairs, jobs::ParseStageList(*text, list));
    for (const auto& [s, t] : pairs) {
      const std::string& inside = in ? t : s;
      if (jobs::LeavesWorkspace(inside)) return Status(EINVAL, list + ": '" + inside + "' leaves the workspace");
      add(s, t);
    }
  }
  return out;
}

// One stage-in copy as the job's user, stopped when the Prolog's time is up.
Status StageInCopy(const BurstJob& j, const std::string& src, const std::string& dst, PrologClock* clock) {
  auto argv = AsUser(j, {Beside("bbctl"), "stage", "in", src, dst, "--quiet"});
  const std::string what = "stage_in " + src + " -> " + dst;
  if (clock->Limit() <= 0) return RunLogged(argv, what);
  const double left = clock->Left();
  BB_ASSIGN_OR_RETURN(Ran r, RunWithDeadline(argv, std::chrono::milliseconds(static_cast<int64_t>(left * 1000))));
  if (r.timed_out) {
    char why[160];
    std::snprintf(why, sizeof why,
                  " stopped after %.0f s, at the end of the time the Prolog has (%.0f s limit, "
                  "PrologEpilogTimeout): stage it in from the job script (bbctl stage in)",
                  left, clock->Limit());
    return Status(ETIMEDOUT, what + why);
  }
  if (r.exit_status != 0) return Status(EIO, what + ": " + (r.err.empty() ? r.out : r.err));
  return Status::Ok();
}

}  // namespace

Status StageIn(const BurstOptions& o, const BurstJob& j, const jobs::BbRequest& req, PrologClock* clock) {
  BB_ASSIGN_OR_RETURN(auto pairs, StagePairs(req.stage_in, j, true));
  if (!pairs.empty() && clock->Limit() > 0) {
    std::vector<std::string> sources;
    for (const auto& p : pairs) sources.push_back(p.first);
    auto rate = ParseByteSize(o.stage_rate);
    auto bytes = BytesUnder(j, sources);  // a source that cannot be read: its copy says why
    if (bytes && rate) {
      std::string why = jobs::StageInRefusal(*bytes, *rate, clock->Left(), clock->Limit());
      if (!why.empty()) return Status(EFBIG, why);
    }
  }
  for (const auto& [src, dst] : pairs) BB_RETURN_IF_ERROR(StageInCopy(j, src, dst, clock));
  return Status::Ok();
}

Status WaitForNodesStagingIn(const BurstJob& j, PrologClock* clock) {
  const int wait_s = clock->Wait(kStagingWaitS);
  bool all = WaitFor(wait_s, [&] {
    if (!Failures(j).empty()) return true;
    for (const auto& n : j.nodes) {
      if (n != j.node && !Exists(j.state + "/staged_in." + n)) return false;
    }
    return true;
  });
  if (auto failed = Failures(j); !failed.empty()) return Status(ECANCELED, "gave up: " + failed.front());
  if (!all) return Status(ETIMEDOUT, "not every node staged in within " + std::to_string(wait_s) + " s");
  return Status::Ok();
}

}  // namespace bb::ctl
