// Fuzz target: the readers of a user's job — #SBATCH and #BB directives (the Slurm prolog reads
// the latter as root), a stage list, what scontrol says of a job, time limits, srun and mpirun
// command lines — and the probe profile merge over node replies.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/jobs/batch_script.h"
#include "tools/jobs/bb_directives.h"
#include "tools/jobs/launch_args.h"
#include "tools/jobs/profile_doc.h"
#include "tools/jobs/slurm_info.h"
#include "tools/jobs/words.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  if (auto o = bb::jobs::ParseBatchDirectives(in, "fuzz")) (void)bb::jobs::ShapeJob(*o, 4);
  (void)bb::jobs::ParseTimeLimit(in);
  static const std::map<std::string, std::string> kVars = {{"SLURM_JOB_ID", "7"}, {"SLURM_SUBMIT_DIR", "/s"}};
  if (auto r = bb::jobs::ParseBbDirectives(in, "fuzz", kVars)) {
    (void)bb::jobs::ModeFileText(*r);
    for (const auto& d : r->stage_in) (void)bb::jobs::InsidePath(d.destination, "/m/job7");
  }
  (void)bb::jobs::ParseStageList(in, "fuzz");
  {
    bb::jobs::SlurmJob job{"17", "node[0-3]", 1000, 100, "alice", "", ""};
    (void)bb::jobs::AddJobJson(in, true, &job);
    (void)bb::jobs::NodeAddrFromJson(in, "node0");
  }
  if (auto words = bb::jobs::SplitWords(in)) {
    bb::jobs::JobEnv job{4, 8, 2, {}};
    if (auto s = bb::jobs::ParseSrunArgs(*words)) {
      if (auto shape = bb::jobs::SrunShape(*s, job)) (void)bb::jobs::PlaceTasks(*shape);
    }
    if (auto m = bb::jobs::ParseMpirunArgs(*words)) {
      if (auto shape = bb::jobs::MpirunShape(*m, job)) (void)bb::jobs::PlaceTasks(*shape);
    }
  }
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_discarded()) (void)bb::jobs::MergeProfiles({j, j}, nlohmann::json::object());
  return 0;
}
