// bbctl: start, stop and inspect burst buffer daemons, and emulate a cluster on one host.
//
//   bbctl start --nodes N --root DIR --mount DIR [-- bbd flags]   N daemons on this host
//   bbctl stop --root DIR | bbctl status --root DIR
//   bbctl emulate up --nodes N --link-rate 1gbit --root DIR --mount DIR [-- bbd flags]
//   bbctl emulate down | status | kill --node I | restart --node I
//   bbctl exec --node I -- CMD...     run CMD on emulated node I (its mount namespace)
//   bbctl exec --by-rank -- CMD...    node = MPI/Slurm rank mod nodes
//   bbctl job start --name JOB --mode-file FILE [--root DIR]   a workspace <mount>/JOB
//   bbctl job stop --name JOB [--root DIR] | bbctl job list [--root DIR]
//   bbctl job run --name JOB (--mode N | --mode-file F) [--nodes N] [--ntasks-per-node K]
//                 [--timeout S] [--profile OUT.json] [--keep] [--json] -- JOB.sh [ARGS]
//   bbctl stats [--node I] [--json | --prometheus] [--root DIR]
//   bbctl drop-caches [--node I] [--root DIR]
//   bbctl key new FILE [--force]      a cluster key (sites that give their own)
//   bbctl qos status --key-file FILE [--controller IP:PORT] [--json]
//   bbctl qos set --job JOB [--metadata OPS] [--data SIZE] [--node I] [--root DIR]
//   bbctl stage in|out SRC DST [--threads N] [--piece-size SIZE] [--manifest F] [--json] [--quiet]
//   bbctl bb prolog|task-env|epilog|up|down [--state-dir D] [--local-dir D] [--mount-dir D] ...
//                                     a job's burst buffer under Slurm (#BB directives)
// Without --root, job, stats, drop-caches and qos set talk to the one burst buffer running on this
// host (the emulated cluster, a cluster of bbctl start, or a lone daemon); when none or several
// run, they say so and name them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "fs/base/auth.h"
#include "fs/base/units.h"
#include "tools/bbctl/admin/stage_cmd.h"
#include "tools/bbctl/cluster.h"
#include "tools/bbctl/emulator/job_run.h"
#include "tools/bbctl/slurm/burst_cmd.h"
#include "tools/cli/cli.h"

using namespace bb::ctl;

namespace {

int Report(const bb::Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "bbctl: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // In a job on the emulated cluster bbctl is also the job's srun, mpirun, mpiexec and scontrol,
  // and the task those start (tools/bbctl/emulator/job_run.h).
  std::string called = std::filesystem::path(argv[0]).filename().string();
  if (called != "bbctl") return LauncherMain(called, std::vector<std::string>(argv + 1, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "task") return TaskMain(std::vector<std::string>(argv + 2, argv + argc));
  CLI::App app{"bbctl: control burst buffer daemons"};
  app.require_subcommand(1);
  StartOptions start;
  std::string root;
  int node = -1;
  bool by_rank = false;
  std::vector<std::string> rest;
  bool as_json = false;

  auto* s = app.add_subcommand("start", "start N daemons on this host");
  s->add_option("--nodes", start.nodes, "number of daemons")->required();
  s->add_option("--root", start.root, "folder for the nodes' roots")->required();
  s->add_option("--mount", start.mount, "folder for the nodes' mounts")->required();
  s->add_option("--base-port", start.base_port, "port of node 0 (node i: +i)");
  s->add_option("bbd_args", start.bbd_args, "flags passed to every bbd (after --)");
  auto* stop = app.add_subcommand("stop", "stop the daemons that start started");
  stop->add_option("--root", root, "the --root given to start")->required();
  auto* status = app.add_subcommand("status", "show the nodes and their state");
  status->add_option("--root", root, "the --root given to start")->required();
  status->add_flag("--json", as_json, "print JSON");

  auto* emu = app.add_subcommand("emulate", "an emulated cluster on this host (root only)");
  emu->require_subcommand(1);
  auto* up = emu->add_subcommand("up", "build the namespaces and links and start the daemons");
  up->add_option("--nodes", start.nodes, "number of nodes")->required();
  up->add_option("--link-rate", start.link_rate, "rate of each node's link, both ways (tc rate)");
  up->add_option("--mtu", start.mtu, "MTU of each node's link (default 1500; 9000 for jumbo frames)");
  up->add_option("--root", start.root, "folder for the nodes' roots")->required();
  up->add_option("--mount", start.mount, "mount path, the same on every node")->required();
  up->add_flag("--slurm", start.slurm,
               "run Slurm (slurmctld here, a slurmd per node; SLURM_CONF=/run/bb-emu/slurm/slurm.conf) instead of "
               "daemons: jobs bring their burst buffer up from #BB directives");
  up->add_flag("!--no-slurm-hooks", start.slurm_hooks,
               "with --slurm: leave the burst buffer's hooks out of slurm.conf (jobs use bbctl bb up/down)");
  up->add_option("bbd_args", start.bbd_args, "flags passed to every bbd (after --)");
  auto* down = emu->add_subcommand("down", "remove every namespace, link, mount and daemon");
  auto* emu_status = emu->add_subcommand("status", "show the emulated nodes");
  emu_status->add_flag("--json", as_json, "print JSON");
  auto* kill = emu->add_subcommand("kill", "kill one node's daemon (SIGKILL)");
  kill->add_option("--node", node, "node number")->required();
  auto* restart = emu->add_subcommand("restart", "start one node's daemon again");
  restart->add_option("--node", node, "node number")->required();

  auto* exec = app.add_subcommand("exec", "run a command on an emulated node");
  exec->add_option("--node", node, "node number");
  exec->add_flag("--by-rank", by_rank, "pick the node from the MPI/Slurm rank");
  exec->add_option("cmd", rest, "the command (after --)")->required();
  std::string job_name, mode_file, ctl_root;
  auto* job = app.add_subcommand("job", "workspaces: one per job, each with its mode file");
  job->require_subcommand(1);
  auto* jstart = job->add_subcommand("start", "create workspace <mount>/NAME with the mode file's layout");
  jstart->add_option("--name", job_name, "workspace (job) name")->required();
  jstart->add_option("--mode-file", mode_file, "the job's mode file (YAML)")->required();
  jstart->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  auto* jstop = job->add_subcommand("stop", "remove workspace NAME with all its files on every node");
  jstop->add_option("--name", job_name, "workspace (job) name")->required();
  jstop->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  JobRunOptions run_opts;
  std::vector<std::string> script_and_args;
  auto* jrun = job->add_subcommand("run", "run a Slurm batch script on the emulated cluster in a workspace of its own");
  jrun->add_option("--name", run_opts.name, "workspace (job) name")->required();
  jrun->add_option("--mode", run_opts.mode, "layout mode 1..4 (or --mode-file)");
  jrun->add_option("--mode-file", run_opts.mode_file, "the job's mode file (or --mode)");
  jrun->add_option("--nodes", run_opts.nodes, "nodes (overrides #SBATCH -N)");
  jrun->add_option("--ntasks-per-node", run_opts.tasks_per_node, "tasks per node (overrides #SBATCH)");
  jrun->add_option("--timeout", run_opts.timeout_s,
                   "seconds until the job is killed on every node (default: #SBATCH -t)");
  jrun->add_option("--profile", run_opts.profile_out, "write the job's I/O profile (JSON) here");
  jrun->add_flag("--keep", run_opts.keep, "keep the workspace afterwards");
  jrun->add_flag("--json", run_opts.json, "print the outcome as one JSON line");
  jrun->add_flag("--select", run_opts.select, "probe in mode 3, let bb-modeselect choose, run in the chosen mode");
  jrun->add_option("script", script_and_args, "JOB.sh [ARGS...] (after --)")->required();
  auto* jlist = job->add_subcommand("list", "list the workspaces");
  jlist->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  jlist->add_flag("--json", as_json, "print JSON");
  auto* stats = app.add_subcommand("stats", "per-node counters: operations, requests per node, RPCs per peer");
  stats->add_option("--node", node, "only this node");
  stats->add_flag("--json", as_json, "print JSON");
  bool as_prometheus = false;
  stats->add_flag("--prometheus", as_prometheus,
                  "print the Prometheus text exposition (metric names: docs/operations.md)");
  stats->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  auto* drop = app.add_subcommand("drop-caches",
                                  "drop every entry and attribute the nodes' kernels and daemons cache (they are read "
                                  "again from their owners)");
  drop->add_option("--node", node, "only this node");
  drop->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  std::string controller = "127.0.0.1:7600", qos_job, data_rate;
  double meta_rate = -1;
  auto* qos = app.add_subcommand("qos", "QoS: the controller's rates, and per-daemon limits");
  qos->require_subcommand(1);
  auto* qstatus = qos->add_subcommand("status", "each job's demand, assigned rate and measured usage");
  qstatus->add_option("--controller", controller, "the controller's IP:PORT");
  std::string key_file;
  qstatus->add_option("--key-file", key_file, "the cluster key the controller was given")->required();
  qstatus->add_flag("--json", as_json, "print JSON");
  auto* qset = qos->add_subcommand("set", "limit a job on the daemons (0 = no limit)");
  qset->add_option("--job", qos_job, "job id (BB_JOB_ID or SLURM_JOB_ID of its processes)")->required();
  qset->add_option("--metadata", meta_rate, "metadata operations per second");
  qset->add_option("--data", data_rate, "data bytes per second, e.g. 50MiB");
  qset->add_option("--node", node, "only this node");
  qset->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  std::string key_path;
  bool key_force = false;
  auto* key = app.add_subcommand("key", "the cluster key every daemon, bbctl and the controller prove");
  key->require_subcommand(1);
  auto* key_new = key->add_subcommand("new", "write a new random key (64 hex digits, mode 0600)");
  key_new->add_option("FILE", key_path, "where")->required();
  key_new->add_flag("--force", key_force, "replace an existing key");
  StageArgs stage_args;
  AddStageCommands(app, &stage_args);
  BurstArgs burst_args;
  AddBurstCommands(app, &burst_args);
  bb::cli::Setup(app);
  if (int rc = bb::cli::Parse(app, argc, argv, "bbctl"); rc >= 0) return rc;

  if (StageChosen(stage_args)) return RunStage(stage_args);
  if (BurstChosen(burst_args)) return RunBurst(burst_args);
  if (*key_new) return Report(bb::auth::CreateKey(key_path, key_force));

  if (*qstatus) return Report(QosStatus(controller, key_file, as_json));
  if (*qset) {
    double data = -1;
    if (!data_rate.empty()) {
      auto bytes = bb::ParseByteSize(data_rate);
      if (!bytes) return Report(bytes.error());
      data = static_cast<double>(*bytes);
    }
    return Report(QosSet(ctl_root, node, qos_job, meta_rate, data));
  }

  if (*jrun) {
    run_opts.script = script_and_args.front();
    run_opts.args.assign(script_and_args.begin() + 1, script_and_args.end());
    JobRunResult probe;
    bb::jobs::Selection selection;
    auto r = run_opts.select ? SelectAndRun(run_opts, &probe, &selection) : JobRun(run_opts);
    if (!r) return Report(r.error());
    if (run_opts.select) {
      if (selection.fallback) {
        std::fprintf(stderr, "bbctl: no decision from bb-modeselect: %s\n", selection.reason.c_str());
      } else {
        std::fprintf(stderr, "bbctl: bb-modeselect chose mode %d (confidence %.2f, %s): %s\n", selection.mode,
                     selection.confidence, selection.selected_by.c_str(), selection.reason.c_str());
      }
      std::fprintf(stderr, "bbctl: probe in mode 3: %.2f s; run in mode %d: %.2f s (%.2fx)\n", probe.wall_seconds,
                   r->mode, r->wall_seconds, r->wall_seconds > 0 ? probe.wall_seconds / r->wall_seconds : 0);
    }
    if (run_opts.json) {
      nlohmann::json out = {{"name", run_opts.name},
                            {"job_id", r->job_id},
                            {"exit_status", r->exit_status},
                            {"timed_out", r->timed_out},
                            {"wall_seconds", r->wall_seconds},
                            {"nodes", r->nodes},
                            {"tasks", r->tasks},
                            {"mode", r->mode}};
      if (run_opts.select) {
        out["selected_by"] = selection.selected_by;
        out["selection_reason"] = selection.reason;
      }
      std::printf("%s\n", out.dump().c_str());
    }
    std::fprintf(stderr, "bbctl: job %s (%s) on %d nodes, %d tasks, mode %d: %s after %.2f s\n", run_opts.name.c_str(),
                 r->job_id.c_str(), r->nodes, r->tasks, r->mode,
                 r->timed_out ? "killed at its time limit" : ("exit " + std::to_string(r->exit_status)).c_str(),
                 r->wall_seconds);
    return r->exit_status;
  }
  if (*jstart) return Report(JobStart(ctl_root, job_name, mode_file));
  if (*jstop) return Report(JobStop(ctl_root, job_name));
  if (*jlist) return Report(JobList(ctl_root, as_json));
  if (*stats) return Report(Stats(ctl_root, node, as_json, as_prometheus));
  if (*drop) return Report(DropCaches(ctl_root, node));

  if (*s) return Report(StartLocal(start));
  if (*stop) return Report(StopLocal(root));
  if (*status) return Report(StatusLocal(root, as_json));
  if (*up) return Report(EmulateUp(start));
  if (*down) return Report(EmulateDown());
  if (*emu_status) return Report(EmulateStatus(as_json));
  if (*kill) return Report(EmulateKill(node));
  if (*restart) return Report(EmulateRestart(node));
  if (*exec) {
    if (by_rank == (node >= 0)) return Report(bb::Status(EINVAL, "give exactly one of --node I and --by-rank"));
    auto rc = Exec(by_rank ? -1 : node, rest);
    if (!rc) return Report(rc.error());
    return *rc;
  }
  return 1;
}
