// The burst buffer's epilog (burst.h): stage-out of what exists, then nothing left on any node.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fs/base/mounts.h"
#include "tools/bbctl/proc.h"
#include "tools/bbctl/slurm/burst.h"
#include "tools/bbctl/slurm/burst_history.h"
#include "tools/bbctl/slurm/burst_job.h"
#include "tools/jobs/stage_limit.h"

namespace bb::ctl {
namespace {

using Clock = std::chrono::steady_clock;

// Run by slurmd as the Epilog (not as a step of the job-script form).
bool FromSlurmEpilog() { return SlurmHookContext() == "epilog_slurmd"; }

// The first node, while every daemon is still up: each stage_out directive whose source exists.
// Returns the report (one line per directive); `ok` false when any copy failed. `own_manifest`:
// every node stages its own files to the same destinations, each with a manifest of its own.
std::string StageOut(const BurstJob& j, const Result<jobs::BbRequest>& req, bool own_manifest, bool* ok) {
  *ok = true;
  std::string report;
  if (!req) {
    *ok = false;
    return "bb: stage_out: " + req.error().message() + "\n";
  }
  for (const auto& d : req->stage_out) {
    std::string src = jobs::InsidePath(d.source, j.workspace), dst = jobs::OutsidePath(d.destination, j.slurm.work_dir);
    struct stat st;
    if (::lstat(src.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOENT) {
        report += "bb: stage_out " + src + ": nothing there, skipped\n";
      } else {  // there may be something there that cannot be reached: not "nothing"
        report += "bb: stage_out " + src + " FAILED: " + std::strerror(err) + "\n";
        *ok = false;
      }
      continue;
    }
    std::vector<std::string> argv = {Beside("bbctl"), "stage", "out", src, dst, "--quiet"};
    if (own_manifest) argv.insert(argv.end(), {"--manifest", dst + "." + j.node + ".bbstage.json"});
    Status s = RunLogged(AsUser(j, argv), "FAILED");
    report +=
        "bb: stage_out " + src + " -> " + dst + (s.ok() ? ": done, every file verified" : " " + s.message()) + "\n";
    *ok = *ok && s.ok();
  }
  return report;
}

// Mode 1 on several nodes, first node: every node's stage-out report, each line naming its node,
// once every node has written it (a node that does not within the deadline is named).
std::string EveryNodesStageOut(const BurstJob& j, bool* ok) {
  std::string report;
  for (const auto& n : j.nodes) {
    const std::string path = j.state + "/staged_out." + n;
    if (!WaitFor(kStagingWaitS, [&] { return Exists(path) || Exists(j.state + "/down." + n); }) || !Exists(path)) {
      report += "bb: stage_out on " + n + ": no report from it; its files were not staged out\n";
      *ok = false;
      continue;
    }
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      if (line.find("FAILED") != std::string::npos) *ok = false;
      report += (line.rfind("bb: ", 0) == 0 ? "bb: " + n + ": " + line.substr(4) : line) + "\n";
    }
  }
  return report;
}

// This node's daemon stopped (it unmounts), its root and mount point removed. Removing the mount
// point also detaches whatever is mounted on it in other mount namespaces of the same host (the
// emulated nodes share one /tmp), so no node gets here before every node's stage-out is done
// (StageOutPhase).
void StopNode(const BurstJob& j) {
  pid_t pid = DaemonPid(j.root);
  if (pid > 0) Terminate(pid, 15);
  if (IsMountPoint(j.mount)) {
    (void)Run({"fusermount3", "-uz", j.mount}, true);
    if (IsMountPoint(j.mount)) (void)Run({"umount", "-l", j.mount}, true);
  }
  std::error_code ec;
  std::filesystem::remove_all(j.root, ec);
  std::filesystem::remove_all(j.root + ".user", ec);
  std::filesystem::remove(j.root + ".key", ec);
  std::filesystem::remove(j.mount, ec);
}

// Stage-out while every daemon is up: the first node stages out (in mode 1 on several nodes
// every node its own files) and says when it is done; the other nodes, which hold the data being
// staged out (or stage out their own while the others do), wait for that. Returns the first
// node's lines for the job's output.
std::string StageOutPhase(const BurstOptions& o, const BurstJob& j, const Result<jobs::BbRequest>& req, bool up) {
  const bool every_node = req && NodePrivateStaging(j, *req);
  std::string report;
  auto wait_for_first = [&] {  // every daemon stays up until the last node's stage-out is done
    if (up && !WaitFor(o.deadline_s * 10, [&] { return Exists(j.state + "/staged_out"); })) {
      std::fprintf(stderr, "bbctl bb: %s: stage-out not done after %d s; stopping anyway\n", j.node.c_str(),
                   o.deadline_s * 10);
    }
  };
  if (j.first || every_node) {
    bool ok = true;
    if (up && Alive(DaemonPid(j.root))) {
      report = StageOut(j, req, every_node, &ok);
    } else if (up) {  // its data went with it: say so rather than stay silent
      ok = false;
      report = "bb: stage_out: the daemon on " + j.node + " is not running; nothing was staged out\n";
    }
    if (every_node) {
      std::ofstream(j.state + "/staged_out." + j.node) << report;
      if (j.first) report = EveryNodesStageOut(j, &ok);
    }
    if (j.first) std::ofstream(j.state + "/staged_out") << (ok ? "ok\n" : "failed\n");
    if (!j.first) wait_for_first();
  } else {
    wait_for_first();
  }
  return report;
}

// The first node, once it is down: waits for the others, keeps mode=auto's profile, tells the
// job's user what came back, and removes the job's state.
void FinishJob(const BurstOptions& o, const BurstJob& j, std::string report, const Status& saved,
               Clock::time_point t0) {
  bool all = WaitFor(o.deadline_s, [&] {
    for (const auto& n : j.nodes) {
      if (!Exists(j.state + "/down." + n)) return false;
    }
    return true;
  });
  if (!saved.ok()) report += "bb: mode=auto: no I/O profile from " + j.node + ": " + saved.message() + "\n";
  for (const auto& n : j.nodes) {
    if (Exists(j.state + "/detached." + n)) {
      report += "bb: " + n +
                "'s epilog went on past Slurm's Epilog time limit, in the background: the node was "
                "released to Slurm meanwhile\n";
    }
  }
  std::string script_text;
  {  // closed before the folder goes (NFS keeps an open file that is removed, and its folder)
    std::ifstream script(j.state + "/script");
    script_text.assign(std::istreambuf_iterator<char>(script), {});
  }
  report += KeepProfile(j, script_text);
  char line[160];
  std::snprintf(line, sizeof line, "bb: %s after %.2f s\n",
                all ? "stopped and removed on every node" : "NOT every node said it is down",
                std::chrono::duration<double>(Clock::now() - t0).count());
  report += line;
  std::fputs(report.c_str(), stderr);
  // The job's output tells its user what came back (written as the user: the file is theirs).
  // A job-script step's stderr is the job's output already.
  if (!j.slurm.std_out.empty() && FromSlurmEpilog()) {
    (void)Run(AsUser(j, {Beside("bbctl"), "bb", "append", "--file", j.slurm.std_out, "--text", report}), true);
  }
  // On NFS (and FUSE) a file removed while some process still has it open is renamed, not
  // removed, until it is closed, and its folder cannot go before: tried again for 10 s.
  WaitFor(10, [&] {
    std::error_code ec;
    std::filesystem::remove_all(j.state, ec);
    return !Exists(j.state);
  });
}

// The epilog's steps on this node, once the job's places are known.
Status EpilogSteps(const BurstOptions& o, const BurstJob& j, const Result<jobs::BbRequest>& req) {
  const bool up = Exists(j.state + "/env");
  const auto t0 = Clock::now();
  std::string report;
  if (j.first && FromSlurmEpilog()) {  // a job-script form's `bbctl bb up` printed it already
    std::ifstream up_log(j.state + "/up.log");
    std::getline(up_log, report);
    if (!report.empty()) report += "\n";
  }
  // mode=auto: this node's part of the job's I/O profile, before stage-out reads the workspace.
  Status saved = up ? SaveNodeProfile(j) : Status::Ok();
  report += StageOutPhase(o, j, req, up);
  StopNode(j);
  std::ofstream(j.state + "/down." + j.node).flush();
  if (j.first) FinishJob(o, j, std::move(report), saved, t0);
  return Status::Ok();
}

// As Slurm's Epilog with a time limit: the steps run in a process of their own (a session of its
// own, its output to nothing, since slurmd reads the Epilog's until it closes), waited for until
// the limit less a margin, then left to finish while this process tells Slurm the node is done.
// A stage-out that takes longer than the limit so goes on with the node back in service instead
// of being killed with it drained.
Status WithinEpilogLimit(const BurstOptions& o, const BurstJob& j, const Result<jobs::BbRequest>& req, double limit_s) {
  const auto t0 = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return EpilogSteps(o, j, req);
  if (pid == 0) {
    ::setsid();
    int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd : {0, 1, 2}) ::dup2(null, fd);
    ::close_range(3, ~0U, 0);
    Status s = EpilogSteps(o, j, req);
    std::fflush(nullptr);
    ::_exit(s.ok() ? 0 : 1);
  }
  const double left = jobs::StageTimeLeft(limit_s, 0);
  for (;;) {
    int rc = TryWait(pid);
    if (rc == 0) return Status::Ok();
    if (rc != -2) return Status(EIO, "the epilog's steps ended with exit " + std::to_string(rc));
    if (std::chrono::duration<double>(Clock::now() - t0).count() > left) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::ofstream(j.state + "/detached." + j.node).flush();
  std::fprintf(stderr,
               "bbctl bb epilog: job %s: not done within the Epilog's %.0f s limit (PrologEpilogTimeout); it goes on "
               "in the background (pid %d) and the node is released\n",
               j.slurm.id.c_str(), limit_s, static_cast<int>(pid));
  return Status::Ok();
}

}  // namespace

Status BurstEpilog(const BurstOptions& o) {
  // No state folder: no burst buffer (or cleaned already), known without asking Slurm anything.
  if (const char* id = std::getenv("SLURM_JOB_ID"); id != nullptr && !Exists(o.state_dir + "/job." + id)) {
    return Status::Ok();
  }
  BB_ASSIGN_OR_RETURN(BurstJob j, LoadBurstJob(o));
  if (!Exists(j.state)) return Status::Ok();  // no burst buffer, or already cleaned
  // The job's directives, read once. A stage-out keeps within Slurm's Epilog limit (the rest of
  // the epilog is quick), which is asked of Slurm only then.
  auto req = LoadRequest(o, j, nullptr);
  if (FromSlurmEpilog() && req && !req->stage_out.empty()) {
    if (double limit = StageLimit(o); limit > 0) return WithinEpilogLimit(o, j, req, limit);
  }
  return EpilogSteps(o, j, req);
}

}  // namespace bb::ctl
