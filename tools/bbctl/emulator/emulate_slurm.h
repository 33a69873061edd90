// Real Slurm on the emulated cluster (bbctl emulate up --slurm): munged and slurmctld on the host
// (the host takes 198.19.255.254 on the bridge), one slurmd per node started in the node's network
// and mount namespaces, so jobs' steps run "on" the nodes and see each node's own mount. The
// burst buffer's hooks (configs/slurm/bb-hook.sh) are the Prolog, Epilog and TaskProlog. All
// state is under <run dir>/slurm; SLURM_CONF names its slurm.conf.
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::ctl {

struct SlurmNode {
  std::string name;     // node<i>
  std::string address;  // its eth0 address
  std::string netns;    // /run/netns/bbnode<i>
  std::string mntns;    // its mount namespace file
};

struct SlurmEmulation {
  std::string run_dir;  // /run/bb-emu
  std::string bridge;   // the host's side, given the controller's address
  std::string root;     // the cluster's --root (the jobs' state and node-local folders go here)
  std::string mount;    // the cluster's --mount (the jobs' mounts go below it)
  std::vector<SlurmNode> nodes;
  bool hooks = true;  // the burst buffer's Prolog, Epilog and TaskProlog
};

// Starts munged (when none runs), slurmctld and every slurmd; OK when every node is idle.
Status StartSlurm(const SlurmEmulation& e);
// Stops slurmctld and the munged StartSlurm started (the slurmds die with the namespaces).
void StopSlurm(const std::string& run_dir);
// The slurm.conf of the emulated cluster.
std::string SlurmConfPath(const std::string& run_dir);

}  // namespace bb::ctl
