// Private to burst*.cc: one job's places and its Slurm facts, and the small steps the hooks
// share.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fs/base/status.h"
#include "tools/bbctl/slurm/burst.h"
#include "tools/jobs/bb_directives.h"
#include "tools/jobs/slurm_info.h"

namespace bb::ctl {

struct BurstJob {
  jobs::SlurmJob slurm;
  std::string node;                // this node's name (SLURMD_NODENAME)
  std::vector<std::string> nodes;  // of the allocation, in Slurm's order (the first runs the batch script)
  bool first = false;
  std::string state;      // <state_dir>/job.<id>
  std::string root;       // this node's root
  std::string mount;      // the mount, on every node
  std::string workspace;  // <mount>/job<id>
};

// The job's owner and nodes from the environment Slurm gives its hooks and processes, its
// submit dir and output file from `squeue --json` (tools/jobs/slurm_info.h). EINVAL
// when not in a Slurm job, or when the two disagree.
Result<BurstJob> LoadBurstJob(const BurstOptions& o);
// The job's directives, from `o.script`, the state folder's copy, or scontrol.
Result<jobs::BbRequest> LoadRequest(const BurstOptions& o, const BurstJob& j, std::string* script_text);
// `argv` as the job's user (through setpriv when this process is root and the job is not).
std::vector<std::string> AsUser(const BurstJob& j, std::vector<std::string> argv);
// Records why this node's part failed (the job fails on it).
void RecordFailure(const BurstJob& j, const std::string& why);
// "node: why" for every node that recorded a failure.
std::vector<std::string> Failures(const BurstJob& j);
// Whether every node stages for itself: a node-private workspace (mode 1) on more than one node,
// where the first node sees only its own files. Stage-in then makes a copy on every node and
// stage-out copies every node's files.
inline bool NodePrivateStaging(const BurstJob& j, const jobs::BbRequest& req) {
  return req.mode == 1 && j.nodes.size() > 1;
}
// How long one node waits for the others' staging.
inline constexpr int kStagingWaitS = 3600;
// The address this node's daemon listens on (scontrol's NodeAddr, resolved).
Result<std::string> NodeAddress(const std::string& node);
bool Exists(const std::string& path);
// Waits until `done()` or `seconds` passed; true when done.
template <typename Done>
bool WaitFor(int seconds, Done done) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}
// A folder of the job's user on this node's local storage, beside the root (`<root>.user`, 0700):
// what the user's own processes read or write for the hooks (the script the mode selector reads,
// the mode file it writes, the profile kept in the user's home). Never on the shared state
// folder, which under NFS root_squash root writes as nobody and cannot give to the user. Made
// (again, when it is not the user's) on each call.
Result<std::string> UserScratch(const BurstJob& j);
// Writes `text` to `path` (truncated, never through a link) with `mode`, given to the job's user
// when this is root.
Status WriteUsers(const BurstJob& j, const std::string& path, const std::string& text, mode_t mode);
// Writes `text` to `path` (likewise), readable by its writer alone (0600): the state folder is
// readable by all.
Status WritePrivate(const std::string& path, const std::string& text);
// The last line of `path` that is not empty ("" when none).
std::string LastLine(const std::string& path);
// Which of Slurm's hooks runs this process (SLURM_SCRIPT_CONTEXT): "prolog_slurmd",
// "epilog_slurmd", or "" (the job-script form, a step of the job).
std::string SlurmHookContext();
// The time limit staging keeps within (tools/jobs/stage_limit.h), in seconds: `--stage-limit`,
// for "auto" Slurm's PrologEpilogTimeout (one scontrol call); 0 for none, and always outside
// Slurm's Prolog and Epilog.
double StageLimit(const BurstOptions& o);
// The bytes under every path in `paths` (read as the job's user: du's apparent sizes).
Result<uint64_t> BytesUnder(const BurstJob& j, const std::vector<std::string>& paths);
// The bbctl and bbd beside this binary (else from PATH).
std::string Beside(const std::string& program);

}  // namespace bb::ctl
