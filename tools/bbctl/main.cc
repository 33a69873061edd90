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
//   bbctl stats [--node I] [--json] [--root DIR]
//   bbctl qos status [--controller IP:PORT] [--json]
//   bbctl qos set --job JOB [--metadata OPS] [--data SIZE] [--node I] [--root DIR]
// Without --root, job and stats talk to the emulated cluster.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "fs/base/units.h"
#include "tools/bbctl/cluster.h"

using namespace bb::ctl;

namespace {

int Report(const bb::Status& s) {
  if (s.ok()) return 0;
  std::fprintf(stderr, "bbctl: %s\n", s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bbctl: control burst buffer daemons"};
  app.require_subcommand(1);
  StartOptions start;
  std::string root;
  int node = -1;
  bool by_rank = false;
  std::vector<std::string> rest;

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

  auto* emu = app.add_subcommand("emulate", "an emulated cluster on this host (root only)");
  emu->require_subcommand(1);
  auto* up = emu->add_subcommand("up", "build the namespaces and links and start the daemons");
  up->add_option("--nodes", start.nodes, "number of nodes")->required();
  up->add_option("--link-rate", start.link_rate, "rate of each node's link, both ways (tc rate)");
  up->add_option("--mtu", start.mtu, "MTU of each node's link (default 1500; 9000 for jumbo frames)");
  up->add_option("--root", start.root, "folder for the nodes' roots")->required();
  up->add_option("--mount", start.mount, "mount path, the same on every node")->required();
  up->add_option("bbd_args", start.bbd_args, "flags passed to every bbd (after --)");
  auto* down = emu->add_subcommand("down", "remove every namespace, link, mount and daemon");
  auto* emu_status = emu->add_subcommand("status", "show the emulated nodes");
  auto* kill = emu->add_subcommand("kill", "kill one node's daemon (SIGKILL)");
  kill->add_option("--node", node, "node number")->required();
  auto* restart = emu->add_subcommand("restart", "start one node's daemon again");
  restart->add_option("--node", node, "node number")->required();

  auto* exec = app.add_subcommand("exec", "run a command on an emulated node");
  exec->add_option("--node", node, "node number");
  exec->add_flag("--by-rank", by_rank, "pick the node from the MPI/Slurm rank");
  exec->add_option("cmd", rest, "the command (after --)")->required();
  std::string job_name, mode_file, ctl_root;
  bool as_json = false;
  auto* job = app.add_subcommand("job", "workspaces: one per job, each with its mode file");
  job->require_subcommand(1);
  auto* jstart = job->add_subcommand("start", "create workspace <mount>/NAME with the mode file's layout");
  jstart->add_option("--name", job_name, "workspace (job) name")->required();
  jstart->add_option("--mode-file", mode_file, "the job's mode file (YAML)")->required();
  jstart->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  auto* jstop = job->add_subcommand("stop", "remove workspace NAME with all its files on every node");
  jstop->add_option("--name", job_name, "workspace (job) name")->required();
  jstop->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  auto* jlist = job->add_subcommand("list", "list the workspaces");
  jlist->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  auto* stats = app.add_subcommand("stats", "per-node counters: operations, requests per node, RPCs per peer");
  stats->add_option("--node", node, "only this node");
  stats->add_flag("--json", as_json, "print JSON");
  stats->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  std::string controller = "127.0.0.1:7600", qos_job, data_rate;
  double meta_rate = -1;
  auto* qos = app.add_subcommand("qos", "QoS: the controller's rates, and per-daemon limits");
  qos->require_subcommand(1);
  auto* qstatus = qos->add_subcommand("status", "each job's demand, assigned rate and measured usage");
  qstatus->add_option("--controller", controller, "the controller's IP:PORT");
  qstatus->add_flag("--json", as_json, "print JSON");
  auto* qset = qos->add_subcommand("set", "limit a job on the daemons (0 = no limit)");
  qset->add_option("--job", qos_job, "job id (BB_JOB_ID or SLURM_JOB_ID of its processes)")->required();
  qset->add_option("--metadata", meta_rate, "metadata operations per second");
  qset->add_option("--data", data_rate, "data bytes per second, e.g. 50MiB");
  qset->add_option("--node", node, "only this node");
  qset->add_option("--root", ctl_root, "cluster root given to bbctl start, or one daemon's root");
  CLI11_PARSE(app, argc, argv);

  if (*qstatus) return Report(QosStatus(controller, as_json));
  if (*qset) {
    double data = -1;
    if (!data_rate.empty()) {
      auto bytes = bb::ParseByteSize(data_rate);
      if (!bytes) return Report(bytes.error());
      data = static_cast<double>(*bytes);
    }
    return Report(QosSet(ctl_root, node, qos_job, meta_rate, data));
  }

  if (*jstart) return Report(JobStart(ctl_root, job_name, mode_file));
  if (*jstop) return Report(JobStop(ctl_root, job_name));
  if (*jlist) return Report(JobList(ctl_root));
  if (*stats) return Report(Stats(ctl_root, node, as_json));

  if (*s) return Report(StartLocal(start));
  if (*stop) return Report(StopLocal(root));
  if (*status) return Report(StatusLocal(root));
  if (*up) return Report(EmulateUp(start));
  if (*down) return Report(EmulateDown());
  if (*emu_status) return Report(EmulateStatus());
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
