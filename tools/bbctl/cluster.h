// bbctl's cluster commands: N daemons on this host (start/stop/status), and the emulated
// cluster (emulate up/down, exec) where node i is a network namespace with its own address in
// 198.18.0.0/15, a shaped veth link to a bridge, and a mount namespace in which its mount
// appears at the same path as on every other node.
//
// Thread-safety: one command per process.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fs/base/status.h"
#include "tools/config/mode_file.h"

namespace bb::ctl {

struct StartOptions {
  int nodes = 1;
  std::string root;   // node i serves <root>/node<i>; the hosts file is <root>/hosts
  std::string mount;  // node i mounts <mount>/node<i> (local start) or <mount> in its namespace
  int base_port = 7300;
  std::string link_rate = "1gbit";  // emulated cluster only
  int mtu = 1500;                   // emulated cluster only: of every node's link
  // Emulated cluster only: Slurm (slurmctld on the host, a slurmd in each node's namespaces)
  // instead of the cluster's own daemons; jobs start theirs from #BB directives (burst.h).
  bool slurm = false;
  bool slurm_hooks = true;  // the burst buffer's Prolog, Epilog and TaskProlog in slurm.conf
  std::vector<std::string> bbd_args;
};

Status StartLocal(const StartOptions& o);
Status StopLocal(const std::string& root);
// With `as_json`: a JSON array, one object per node (node, pid, state, mount; address when
// emulated), the same shape from both.
Status StatusLocal(const std::string& root, bool as_json = false);

// Root only: builds the namespaces, links and daemons; cleans a leftover cluster first.
Status EmulateUp(const StartOptions& o);
// Removes every namespace, link, mount and daemon of the emulated cluster; safe to repeat and
// after a crash of any part.
Status EmulateDown();
Status EmulateStatus(bool as_json = false);
// Kills (SIGKILL) or starts again the daemon of one emulated node.
Status EmulateKill(int node);
Status EmulateRestart(int node);
// Runs `cmd` in node `node`'s mount namespace (host network); returns its exit status.
// node < 0: from the MPI/Slurm rank in the environment, rank mod nodes.
Result<int> Exec(int node, const std::vector<std::string>& cmd);

// Enters node `node`'s mount namespace (the calling process; the working directory is kept).
Status EnterNode(int node);
// The emulated cluster that is up; ENOENT when none is.
struct EmulatedInfo {
  int nodes = 0;
  std::string root;
  std::string mount;
};
Result<EmulatedInfo> ReadEmulated();
// The folder the emulated cluster keeps its state in (/run/bb-emu).
std::string EmulatedRunDir();
// The number of nodes `bbctl start --root root` started; ENOENT when none.
Result<int> LocalClusterNodes(const std::string& root);

// A burst buffer running on this host, and its daemons' control sockets by node.
struct RunningCluster {
  std::string root;
  std::string what;  // "the emulated cluster, 4 nodes", "one daemon (pid 17)"
  std::vector<std::string> sockets;
};
// Every one running here: the emulated cluster, clusters `bbctl start` started, lone daemons
// (found among the running bbd processes, by their --root).
std::vector<RunningCluster> RunningClusters();
// The one running here: ENOENT when none does, EINVAL naming each when several do.
Result<RunningCluster> TheRunningCluster();

// Workspaces and statistics through the daemons' control sockets. `root`: the --root of
// `bbctl start` or `bbctl emulate up`, or one daemon's root; empty = the one burst buffer
// running on this host (TheRunningCluster).
Status JobStart(const std::string& root, const std::string& name, const std::string& mode_file);
Status JobStop(const std::string& root, const std::string& name);
// With `as_json`: a JSON array of the workspaces (name, mode, chunk_size, metadata_server_ratio
// where the mode uses it, path).
Status JobList(const std::string& root, bool as_json = false);
// node < 0: every node.
// as_prometheus: the Prometheus text exposition (fs/daemon/metrics.h) of the nodes asked.
Status Stats(const std::string& root, int node, bool as_json, bool as_prometheus = false);
// Every node (or node `node`) drops the entries and attributes its kernel and daemon cache.
Status DropCaches(const std::string& root, int node);
// One request to one daemon's control socket: the reply, or its error (errno and message).
Result<nlohmann::json> Ask(const std::string& socket, const nlohmann::json& request, int timeout_ms);
// The job_start request of workspace `name` with the layout and decision record of `mode`.
nlohmann::json JobStartRequest(const std::string& name, const config::ModeFile& mode);
// The daemons' control sockets, by node (see Stats for `root`).
Result<std::vector<std::string>> DaemonSockets(const std::string& root);

// QoS: the controller's view, and per-daemon limits (< 0: leave as is; 0: no limit).
Status QosStatus(const std::string& controller, const std::string& key_file, bool as_json);
Status QosSet(const std::string& root, int node, const std::string& job, double metadata, double data);

}  // namespace bb::ctl
