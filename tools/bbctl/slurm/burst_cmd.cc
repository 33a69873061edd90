#include "tools/bbctl/slurm/burst_cmd.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "fs/base/units.h"
#include "tools/jobs/bb_directives.h"

namespace bb::ctl {
namespace {

void AddOptions(CLI::App* c, BurstOptions* o, bool script) {
  if (script) c->add_option("--script", o->script, "the job script (default: the job's, from scontrol)");
  c->add_option("--state-dir", o->state_dir, "folder shared by every node for the jobs' state (default /var/lib/bb)");
  c->add_option("--local-dir", o->local_dir, "node-local storage for the roots; %n is the node's name (default /tmp)");
  c->add_option("--mount-dir", o->mount_dir, "where each job's mount is made, the same on every node (default /tmp)");
  c->add_option("--port", o->port, "the daemons' port (default 0: 7100 + job id mod 800)");
  c->add_option("--deadline", o->deadline_s, "seconds for every daemon to mount (default 120)");
  c->add_option("--stage-limit", o->stage_limit,
                "seconds the Prolog's stage-in and the Epilog's stage-out keep within; auto: Slurm's "
                "PrologEpilogTimeout; 0: none (default auto)")
      ->check([](const std::string& v) -> std::string {
        char* end = nullptr;
        double d = std::strtod(v.c_str(), &end);
        return v == "auto" || (!v.empty() && *end == '\0' && d >= 0) ? "" : "auto or seconds, not '" + v + "'";
      });
  c->add_option("--submit-mark", o->submit_mark,
                "on: job_submit.lua marks jobs with #BB lines, so the Prolog takes an unmarked job for one "
                "without, without reading its script (default off)");
  c->add_option("--stage-rate", o->stage_rate,
                "the rate staging is expected to reach: a stage-in that would not fit the limit at it is refused "
                "(default 100MiB, per second)")
      ->check([](const std::string& v) -> std::string {
        auto r = ParseByteSize(v);
        return r ? "" : r.error().message();
      });
  c->add_option("bbd_args", o->bbd_args, "more flags for every bbd (after --)");
}

int Exit(const char* step, const Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "bbctl bb %s: %s\n", step, s.message().c_str());
  return 1;
}

}  // namespace

void AddBurstCommands(CLI::App& app, BurstArgs* a) {
  auto* bb = app.add_subcommand("bb", "a job's burst buffer under Slurm, from its #BB directives");
  bb->require_subcommand(1);
  a->prolog = bb->add_subcommand("prolog", "Slurm Prolog (every node): daemon, mount; first node: workspace, stage-in");
  a->task_env =
      bb->add_subcommand("task-env", "Slurm TaskProlog: export BB_MOUNT/BB_WORKSPACE, or fail the job saying why");
  a->epilog = bb->add_subcommand("epilog", "Slurm Epilog (every node): stage-out, then stop and remove everything");
  a->up = bb->add_subcommand("up", "in a job script: the prolog on every node (srun), then print the exports");
  a->down = bb->add_subcommand("down", "in a job script: the epilog on every node (srun)");
  a->append = bb->add_subcommand("append", "append a line to a file (the job's output, as its user)");
  AddOptions(a->prolog, &a->options, true);
  AddOptions(a->task_env, &a->options, false);
  AddOptions(a->epilog, &a->options, true);
  AddOptions(a->up, &a->options, true);
  AddOptions(a->down, &a->options, true);
  a->check = bb->add_subcommand(
      "check", "check a job script's #BB lines as the hooks will (Slurm's job_submit.lua runs it at sbatch)");
  a->check->add_option("--script", a->check_script, "the job script (- for standard input)")->required();
  a->append->add_option("--file", a->file, "the file")->required();
  a->append->add_option("--text", a->text, "what to append")->required();
}

bool BurstChosen(const BurstArgs& a) {
  return *a.prolog || *a.task_env || *a.epilog || *a.up || *a.down || *a.append || *a.check;
}

namespace {

// The directives of a script not yet submitted: its variables (job id, submit folder, user) are
// not known, so each stands for a value of its kind; what is checked is what the hooks refuse.
Status CheckScript(const std::string& path) {
  std::string text;
  if (path == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    std::ifstream in(path);
    if (!in) return Status(ENOENT, "cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  const std::map<std::string, std::string> vars = {
      {"SLURM_JOB_ID", "1"}, {"SLURM_SUBMIT_DIR", "/submit"}, {"USER", "user"}, {"HOME", "/home/user"}};
  auto r = jobs::ParseBbDirectives(text, "job script", vars);
  return r ? Status::Ok() : r.error();
}

}  // namespace

int RunBurst(BurstArgs& a) {
  if (*a.prolog) return Exit("prolog", BurstProlog(a.options));
  if (*a.task_env) return BurstTaskEnv(a.options);
  if (*a.epilog) return Exit("epilog", BurstEpilog(a.options));
  if (*a.up) return BurstUp(a.options);
  if (*a.down) return BurstDown(a.options);
  if (*a.check) {
    Status s = CheckScript(a.check_script);
    // "ok" on standard output too: Lua 5.1's popen, which job_submit.lua reads it by, has no exit status.
    if (s.ok()) std::printf("#BB: ok\n");
    if (!s.ok()) std::fprintf(stderr, "%s\n", s.message().c_str());
    return s.ok() ? 0 : 1;
  }
  return Exit("append", BurstAppend(a.file, a.text));
}

}  // namespace bb::ctl
