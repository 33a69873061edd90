// A job's burst buffer under Slurm, from its #BB directives (tools/jobs/bb_directives.h): one
// daemon per node of the allocation, the job's workspace, stage-in before the job and stage-out
// after it (also when it failed or was cancelled), and nothing left behind.
//
// Two forms share the per-node steps:
//   - Slurm's hooks (configs/slurm/): Prolog runs `bbctl bb prolog` on every node of the job
//     (PrologFlags=Alloc), TaskProlog `bbctl bb task-env` (exports BB_MOUNT and BB_WORKSPACE to
//     every task, or fails the job naming the node and the reason), Epilog `bbctl bb epilog`.
//     Users write only directives.
//   - In a job script: `eval "$(bbctl bb up --script "$0")"` runs the prolog step on every node
//     with srun (one task per node, whatever the job's task count) and prints the exports;
//     `bbctl bb down` (in an EXIT trap) runs the epilog step the same way.
//
// Per job, on a shared file system: <state>/job.<id>/ holds the hosts file and cluster key, the
// script, the mode file, `fail.<node>` (why a node's part failed), `env` (written when the
// workspace is staged in: the job may start), `staged_out` and `down.<node>`; only root writes
// there and nothing there is given to the user, so it may be root-squashed. On every node: the
// root <local>/bb.<id> (node-local storage, 0700), the daemon's copy of the key <local>/bb.<id>.key,
// the user's <local>/bb.<id>.user (burst_job.h: UserScratch) and the mount <mounts>/bb.<id>. The first
// node of the allocation (where the batch script runs) makes the workspace, stages, and removes
// the state folder once every node is down.
//
// Thread-safety: one command per process.
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::ctl {

struct BurstOptions {
  std::string script;                     // the job script (default: scontrol write batch_script)
  std::string script_text;                // the job script's text, when the prolog read it already
  std::string state_dir = "/var/lib/bb";  // shared by all nodes
  std::string local_dir = "/tmp";         // node-local storage; "%n" is replaced by the node's name
  std::string mount_dir = "/tmp";         // where the mount is made (the same path on every node)
  int port = 0;                           // the daemons' --listen port (0: 7100 + job id mod 800)
  int deadline_s = 120;                   // for the daemons to mount, and for the epilog's waits
  // Staging within Slurm's Prolog/Epilog time limit (tools/jobs/stage_limit.h): the limit in
  // seconds, "auto" for Slurm's PrologEpilogTimeout, 0 for none; and the rate staging is expected
  // to reach, by which a stage-in that would not fit is refused before it starts.
  std::string stage_limit = "auto";
  // job_submit.lua marks jobs with #BB lines ("[#BB]" in their comment): the Prolog takes a job
  // without the mark for one without #BB, without reading its script.
  bool submit_mark = false;
  std::string stage_rate = "100MiB";
  std::vector<std::string> bbd_args;  // more flags for every bbd
};

// Slurm Prolog / job-script step on one node. Returns an error only when the failure could not
// be recorded for the job (Slurm then drains the node); a failure of the burst buffer itself is
// recorded in fail.<node> and fails the job through task-env. As Slurm's Prolog it stays within
// the stage limit: a stage-in that would not fit is refused before it starts, one that runs late
// is stopped, and the waits for other nodes end, each a failure of the job, not of the node.
Status BurstProlog(const BurstOptions& o);
// TaskProlog: prints "export NAME=value" lines, or "print ..." lines and exits 1 when a node
// failed. Prints nothing for a job without a burst buffer. Returns the exit status.
int BurstTaskEnv(const BurstOptions& o);
// Slurm Epilog / job-script step on one node: stage-out (first node), daemon stopped, root and
// mount removed; the first node removes the job's state last. Safe to repeat. As Slurm's Epilog
// with a stage limit, what is not done within it goes on in the background (the node is released
// to Slurm, never drained) and the job's output says so.
Status BurstEpilog(const BurstOptions& o);
// The job-script form: srun of the prolog (up) or epilog (down) on every node of the job.
// Up prints the exports for eval, or names each failed node and why (then cleans up: exit 1).
int BurstUp(const BurstOptions& o);
int BurstDown(const BurstOptions& o);
// Appends `text` to `file` (the job's output; run as the job's user).
Status BurstAppend(const std::string& file, const std::string& text);

}  // namespace bb::ctl
