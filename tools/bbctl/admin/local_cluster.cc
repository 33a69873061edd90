// N daemons on this host, each with its own root and mount, over loopback.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fs/base/auth.h"
#include "tools/bbctl/cluster.h"
#include "tools/bbctl/proc.h"

namespace bb::ctl {
namespace {

std::string Bbd() {
  std::string beside = SelfDir() + "/bbd";
  return std::filesystem::exists(beside) ? beside : "bbd";
}

struct LocalState {
  int nodes = 0;
  std::string mount;
};

// What `bbctl start` recorded in <root>/cluster.state.
Result<LocalState> ReadState(const std::string& root) {
  std::ifstream in(root + "/cluster.state");
  std::string k1, k2;
  LocalState s;
  if (!(in >> k1 >> s.nodes >> k2 >> s.mount) || k1 != "nodes" || k2 != "mount" || s.nodes < 1) {
    return Status(ENOENT, "no cluster started with root " + root + " (missing or bad " + root + "/cluster.state)");
  }
  return s;
}

}  // namespace

Result<int> LocalClusterNodes(const std::string& root) {
  BB_ASSIGN_OR_RETURN(LocalState s, ReadState(root));
  return s.nodes;
}

// A daemon of an earlier start still serving under `root` (any node folder), or ENOENT.
Result<std::string> RunningUnder(const std::string& root) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
    if (!e.is_directory() || e.path().filename().string().rfind("node", 0) != 0) continue;
    pid_t pid = DaemonPid(e.path().string());
    if (Alive(pid)) return e.path().filename().string() + " (pid " + std::to_string(pid) + ")";
  }
  return Status(ENOENT, "none");
}

Status StartLocal(const StartOptions& o) {
  if (o.nodes < 1) return Status(EINVAL, "--nodes must be at least 1");
  // Never touch a running cluster: a second start would fail on its locks, and the clean-up
  // of that failure would stop it.
  if (auto running = RunningUnder(o.root)) {
    return Status(EBUSY, "a cluster is already running under " + o.root + ": " + *running +
                             " serves there; stop it first (bbctl stop --root " + o.root + ")");
  }
  std::error_code ec;
  std::filesystem::create_directories(o.root, ec);
  if (ec) return Status(ec.value(), "cannot create " + o.root + ": " + ec.message());
  std::filesystem::remove(o.root + "/hosts", ec);
  if (o.nodes > 1) BB_RETURN_IF_ERROR(auth::CreateKey(o.root + "/hosts.key", /*replace=*/true));  // new per instance
  std::vector<pid_t> pids;
  for (int i = 0; i < o.nodes; ++i) {
    std::string mnt = o.mount + "/node" + std::to_string(i);
    std::filesystem::create_directories(mnt, ec);
    std::vector<std::string> argv = {Bbd(), "--root", o.root + "/node" + std::to_string(i), "--mount", mnt};
    if (o.nodes > 1) {
      argv.insert(argv.end(), {"--hosts-file", o.root + "/hosts", "--node-name", "node" + std::to_string(i), "--listen",
                               "127.0.0.1:" + std::to_string(o.base_port + i), "--nodes", std::to_string(o.nodes)});
    }
    AppendBbdArgs(&argv, o.bbd_args);
    BB_ASSIGN_OR_RETURN(pid_t pid, Spawn(argv));
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) failed += Wait(pid) != 0;  // each bbd returns once mounted, or failed
  std::ofstream(o.root + "/cluster.state") << "nodes " << o.nodes << "\nmount " << o.mount << "\n";
  if (failed > 0) {
    (void)StopLocal(o.root);
    return Status(EIO, std::to_string(failed) + " of " + std::to_string(o.nodes) + " daemons did not start");
  }
  std::printf("bbctl: %d node%s ready, mounted under %s\n", o.nodes, o.nodes > 1 ? "s" : "", o.mount.c_str());
  return Status::Ok();
}

Status StopLocal(const std::string& root) {
  BB_ASSIGN_OR_RETURN(LocalState st, ReadState(root));
  int n = st.nodes;
  const std::string& mount = st.mount;
  // Returns only once every daemon has exited and its mount is gone, so that a start on the
  // same root right after finds it free (a daemon closing its store lives on for a while after
  // its main thread returned).
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    pids.push_back(DaemonPid(root + "/node" + std::to_string(i)));
    if (pids.back() > 0) ::kill(pids.back(), SIGTERM);
  }
  int stuck = 0;
  for (int i = 0; i < n; ++i) {
    if (!Terminate(pids[i], 10)) ++stuck;
    std::string mnt = mount + "/node" + std::to_string(i);
    for (int k = 0; k < 100 && IsMountPoint(mnt); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (IsMountPoint(mnt)) (void)Run({"umount", "-l", mnt}, true);
  }
  std::error_code ec;
  std::filesystem::remove(root + "/cluster.state", ec);
  if (stuck) return Status(EBUSY, std::to_string(stuck) + " daemons did not stop");
  std::printf("bbctl: %d node%s stopped\n", n, n > 1 ? "s" : "");
  return Status::Ok();
}

Status StatusLocal(const std::string& root, bool as_json) {
  BB_ASSIGN_OR_RETURN(LocalState st, ReadState(root));
  int n = st.nodes;
  const std::string& mount = st.mount;
  int up = 0;
  nlohmann::json nodes = nlohmann::json::array();
  if (!as_json) std::printf("%-8s %-8s %-8s %s\n", "node", "pid", "state", "mount");
  for (int i = 0; i < n; ++i) {
    pid_t pid = DaemonPid(root + "/node" + std::to_string(i));
    std::string mnt = mount + "/node" + std::to_string(i);
    bool alive = Alive(pid), mounted = IsMountPoint(mnt);
    up += alive && mounted;
    const char* state = alive && mounted ? "up" : alive ? "starting" : "down";
    if (!as_json) std::printf("node%-4d %-8d %-8s %s\n", i, pid, state, mnt.c_str());
    nodes.push_back({{"node", i}, {"pid", pid}, {"state", state}, {"mount", mnt}});
  }
  if (as_json) std::printf("%s\n", nodes.dump(2).c_str());
  return up == n ? Status::Ok() : Status(EIO, std::to_string(n - up) + " of " + std::to_string(n) + " nodes are down");
}

}  // namespace bb::ctl
