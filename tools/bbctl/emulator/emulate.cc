// The emulated cluster on one host
// (docs/architecture.md#the-cluster-trust-and-the-emulated-cluster).
//
// Node i: network namespace bbnode<i> with address 198.18.<i/250>.<i%250+1>/15 on eth0, the
// peer of veth bbv<i> on bridge bbbr0; a TBF qdisc on both ends shapes each direction to the
// link rate; a persistent mount namespace at /run/bb-emu/mnt<i>, private, in which node i's
// daemon mounts the file system at the common mount path. Daemons run in both namespaces with
// UCX restricted to TCP on eth0, so their traffic crosses the shaped links. Clients run in a
// node's mount namespace only (host network), so MPI keeps working across "nodes".
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "fs/base/auth.h"
#include "tools/bbctl/cluster.h"
#include "tools/bbctl/emulator/emulate_slurm.h"
#include "tools/bbctl/proc.h"

namespace bb::ctl {
namespace {

const std::string kRunDir = "/run/bb-emu";
const std::string kBridge = "bbbr0";
constexpr int kPort = 7070;

std::string NsName(int i) { return "bbnode" + std::to_string(i); }
std::string Veth(int i) { return "bbv" + std::to_string(i); }
std::string MntNs(int i) { return kRunDir + "/mnt" + std::to_string(i); }
std::string HolderFile(int i) { return kRunDir + "/holder" + std::to_string(i); }
std::string Address(int i) { return "198.18." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1); }

struct State {
  int nodes = 0;
  std::string root, mount, rate;
  std::vector<std::string> bbd_args;
};

Result<State> ReadState() {
  std::ifstream in(kRunDir + "/state");
  State s;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "nodes")
      f >> s.nodes;
    else if (key == "root")
      f >> s.root;
    else if (key == "mount")
      f >> s.mount;
    else if (key == "rate")
      f >> s.rate;
    else if (key == "arg") {
      std::string a;
      std::getline(f >> std::ws, a);
      s.bbd_args.push_back(a);
    }
  }
  if (s.nodes < 1) return Status(ENOENT, "no emulated cluster is up (see bbctl emulate up)");
  return s;
}

Status NeedRoot() {
  if (::geteuid() != 0) {
    return Status(EPERM,
                  "bbctl emulate needs root: it creates network namespaces, veth links, "
                  "traffic shapers and mount namespaces");
  }
  return Status::Ok();
}

// Bytes per second of a tc rate such as "1gbit", "100mbit", "500kbit".
uint64_t RateBytes(const std::string& rate) {
  double v = std::atof(rate.c_str());
  std::string unit = rate.substr(rate.find_first_not_of("0123456789."));
  double mult = unit == "gbit" ? 1e9 : unit == "mbit" ? 1e6 : unit == "kbit" ? 1e3 : 8;
  return static_cast<uint64_t>(v * mult / 8);
}

Status Shape(const std::vector<std::string>& prefix, const std::string& dev, const std::string& rate) {
  // Burst of 10 ms at the link rate, at least 64 KiB, so TBF can keep up with the timer.
  uint64_t burst = std::max<uint64_t>(RateBytes(rate) / 100, 64 * 1024);
  std::vector<std::string> cmd = prefix;
  cmd.insert(cmd.end(), {"tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate, "burst",
                         std::to_string(burst), "latency", "100ms"});
  return RunOk(cmd, true);
}

std::string BbdPath() {
  std::string beside = SelfDir() + "/bbd";
  return std::filesystem::exists(beside) ? beside : "bbd";
}

Result<pid_t> SpawnDaemon(const State& s, int i) {
  std::vector<std::string> argv = {"nsenter",
                                   "--net=/run/netns/" + NsName(i),
                                   "--mount=" + MntNs(i),
                                   "--",
                                   BbdPath(),
                                   "--root",
                                   s.root + "/node" + std::to_string(i),
                                   "--mount",
                                   s.mount,
                                   "--hosts-file",
                                   s.root + "/hosts",
                                   "--node-name",
                                   "node" + std::to_string(i),
                                   "--listen",
                                   Address(i) + ":" + std::to_string(kPort),
                                   "--nodes",
                                   std::to_string(s.nodes)};
  AppendBbdArgs(&argv, s.bbd_args);
  // TCP only, on the shaped link: no shared-memory shortcut between "nodes" of one host.
  return Spawn(argv, {{"UCX_TLS", "tcp"}, {"UCX_NET_DEVICES", "eth0"}});
}

// Processes living in any of the cluster's namespaces.
std::vector<pid_t> ClusterProcesses() {
  std::set<std::pair<dev_t, ino_t>> spaces;
  for (const std::string& dir : {kRunDir, std::string("/run/netns")}) {
    std::error_code ec;
    for (auto& e : std::filesystem::directory_iterator(dir, ec)) {
      std::string name = e.path().filename();
      if (name.rfind("mnt", 0) != 0 && name.rfind("bbnode", 0) != 0) continue;
      struct stat st {};
      if (::stat(e.path().c_str(), &st) == 0) spaces.insert({st.st_dev, st.st_ino});
    }
  }
  std::vector<pid_t> pids;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    if (pid == ::getpid()) continue;
    for (const char* ns : {"/ns/mnt", "/ns/net"}) {
      struct stat st {};
      if (::stat((e.path().string() + ns).c_str(), &st) == 0 && spaces.count({st.st_dev, st.st_ino})) {
        pids.push_back(pid);
        break;
      }
    }
  }
  return pids;
}

// Node i's network namespace, its shaped veth to the bridge, its mount namespace and its root.
Status BuildNode(const State& s, int i, int mtu_bytes) {
  const std::string ns = NsName(i), mtu = std::to_string(mtu_bytes);
  const std::vector<std::vector<std::string>> steps = {
      {"ip", "netns", "add", ns},
      {"ip", "link", "add", Veth(i), "mtu", mtu, "type", "veth", "peer", "name", "eth0", "mtu", mtu, "netns", ns},
      {"ip", "link", "set", Veth(i), "master", kBridge},
      {"ip", "link", "set", Veth(i), "up"},
      {"ip", "-n", ns, "addr", "add", Address(i) + "/15", "dev", "eth0"},
      {"ip", "-n", ns, "link", "set", "eth0", "up"},
      {"ip", "-n", ns, "link", "set", "lo", "up"},
  };
  for (const auto& step : steps) BB_RETURN_IF_ERROR(RunOk(step, true));
  BB_RETURN_IF_ERROR(Shape({"ip", "netns", "exec", ns}, "eth0", s.rate));
  BB_RETURN_IF_ERROR(Shape({}, Veth(i), s.rate));
  std::ofstream(MntNs(i)).flush();
  BB_RETURN_IF_ERROR(RunOk({"unshare", "--mount=" + MntNs(i), "--propagation", "private", "true"}, true));
  std::error_code ec;
  std::filesystem::create_directories(s.root + "/node" + std::to_string(i), ec);
  // A process that stays in the node's mount namespace, so that a process inside another
  // node's namespace can still enter this one through /proc/<pid>/ns/mnt: the namespace files
  // under kRunDir are mounts, and a namespace made earlier never sees those made after it.
  BB_ASSIGN_OR_RETURN(pid_t holder, Spawn({"nsenter", "--mount=" + MntNs(i), "--", "sleep", "infinity"}, {}, true));
  std::ofstream(HolderFile(i)) << holder << "\n";
  return Status::Ok();
}

// Every node's daemon, started at once; OK when all are mounted.
Status StartDaemons(const State& s) {
  std::vector<pid_t> pids;
  for (int i = 0; i < s.nodes; ++i) {
    auto pid = SpawnDaemon(s, i);
    if (!pid) {
      for (pid_t p : pids) Wait(p);
      return pid.error();
    }
    pids.push_back(*pid);
  }
  int failed = 0;
  for (pid_t p : pids) failed += Wait(p) != 0;
  if (failed) return Status(EIO, std::to_string(failed) + " daemons did not start (see <root>/node*/bbd.log)");
  return Status::Ok();
}

}  // namespace

Status EmulateDown() {
  BB_RETURN_IF_ERROR(NeedRoot());
  StopSlurm(kRunDir);  // when up: no new job steps while the nodes go
  // Daemons first, gently (they unmount), then anything else left in the namespaces.
  auto pids = ClusterProcesses();
  for (pid_t p : pids) ::kill(p, SIGTERM);
  for (int i = 0; i < 250 && !ClusterProcesses().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t p : ClusterProcesses()) ::kill(p, SIGKILL);
  for (int i = 0; i < 250 && !ClusterProcesses().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(kRunDir, ec)) {
    std::string name = e.path().filename();
    if (name.rfind("mnt", 0) == 0) {
      (void)Run({"umount", "-l", e.path()}, true);
      std::filesystem::remove(e.path(), ec);
    }
  }
  for (auto& e : std::filesystem::directory_iterator("/run/netns", ec)) {
    std::string name = e.path().filename();
    if (name.rfind("bbnode", 0) == 0) (void)Run({"ip", "netns", "del", name}, true);
  }
  // veths die with their namespace; remove any host end that survived, then the bridge.
  for (auto& e : std::filesystem::directory_iterator("/sys/class/net", ec)) {
    std::string name = e.path().filename();
    if (name.rfind("bbv", 0) == 0) (void)Run({"ip", "link", "del", name}, true);
  }
  if (std::filesystem::exists("/sys/class/net/" + kBridge)) (void)Run({"ip", "link", "del", kBridge}, true);
  if (IsMountPoint(kRunDir)) (void)Run({"umount", "-l", kRunDir}, true);
  for (const char* cg : {"/sys/fs/cgroup/bb-emu", "/sys/fs/cgroup/unified/bb-emu"}) {  // jobs' cgroups
    for (auto& e : std::filesystem::directory_iterator(cg, ec)) {
      if (e.is_directory()) std::filesystem::remove(e.path(), ec);
    }
    std::filesystem::remove(cg, ec);
  }
  std::filesystem::remove_all(kRunDir, ec);
  bool clean = !std::filesystem::exists(kRunDir) && !std::filesystem::exists("/sys/class/net/" + kBridge);
  if (!clean) return Status(EBUSY, "the emulated cluster could not be removed completely");
  std::printf("bbctl: emulated cluster is down\n");
  return Status::Ok();
}

Status EmulateUp(const StartOptions& o) {
  BB_RETURN_IF_ERROR(NeedRoot());
  if (o.nodes < 1 || o.nodes > 1000) return Status(EINVAL, "--nodes must be 1..1000");
  if (RateBytes(o.link_rate) == 0) return Status(EINVAL, "--link-rate '" + o.link_rate + "' is not a rate like 1gbit");
  if (o.mtu < 576 || o.mtu > 65535)
    return Status(EINVAL, "--mtu must be 576..65535 (1500 is Ethernet's, 9000 jumbo frames)");
  if (std::filesystem::exists(kRunDir) || std::filesystem::exists("/sys/class/net/" + kBridge)) {
    std::printf("bbctl: cleaning a leftover emulated cluster first\n");
    BB_RETURN_IF_ERROR(EmulateDown());
  }
  State s{o.nodes, std::filesystem::absolute(o.root).lexically_normal().string(),
          std::filesystem::absolute(o.mount).lexically_normal().string(), o.link_rate, o.bbd_args};
  std::error_code ec;
  std::filesystem::create_directories(kRunDir, ec);
  std::filesystem::create_directories(s.mount, ec);
  std::filesystem::create_directories(s.root, ec);
  std::filesystem::remove(s.root + "/hosts", ec);
  // A new secret per instance, beside the hosts file where every daemon looks for it.
  BB_RETURN_IF_ERROR(auth::CreateKey(s.root + "/hosts.key", /*replace=*/true));
  BB_RETURN_IF_ERROR(RunOk({"mount", "--bind", kRunDir, kRunDir}, true));
  BB_RETURN_IF_ERROR(RunOk({"mount", "--make-private", kRunDir}, true));
  {
    std::ofstream st(kRunDir + "/state");
    st << "nodes " << s.nodes << "\nroot " << s.root << "\nmount " << s.mount << "\nrate " << s.rate << "\n";
    for (const auto& a : s.bbd_args) st << "arg " << a << "\n";
  }
  auto fail = [](Status st) {
    (void)EmulateDown();
    return st;
  };
  if (Status st = RunOk({"ip", "link", "add", kBridge, "type", "bridge"}, true); !st.ok()) return fail(st);
  if (Status st = RunOk({"ip", "link", "set", kBridge, "up"}, true); !st.ok()) return fail(st);
  for (int i = 0; i < s.nodes; ++i) {
    if (Status st = BuildNode(s, i, o.mtu); !st.ok()) return fail(st);
  }
  if (o.slurm) {
    SlurmEmulation e{kRunDir, kBridge, s.root, s.mount, {}, o.slurm_hooks};
    for (int i = 0; i < s.nodes; ++i) {
      e.nodes.push_back({"node" + std::to_string(i), Address(i), "/run/netns/" + NsName(i), MntNs(i)});
    }
    if (Status st = StartSlurm(e); !st.ok()) return fail(st);
    std::printf("bbctl: emulated cluster up with Slurm: %d nodes (198.18.0.1..), links %s; export SLURM_CONF=%s\n",
                s.nodes, s.rate.c_str(), SlurmConfPath(kRunDir).c_str());
    return Status::Ok();
  }
  if (Status st = StartDaemons(s); !st.ok()) return fail(st);
  std::printf("bbctl: emulated cluster up: %d nodes (198.18.0.1..), links %s, mount %s on every node\n", s.nodes,
              s.rate.c_str(), s.mount.c_str());
  return Status::Ok();
}

Status EmulateStatus(bool as_json) {
  BB_ASSIGN_OR_RETURN(State s, ReadState());
  int up = 0;
  nlohmann::json nodes = nlohmann::json::array();
  if (!as_json) std::printf("%-8s %-14s %-8s %s\n", "node", "address", "pid", "state");
  for (int i = 0; i < s.nodes; ++i) {
    pid_t pid = DaemonPid(s.root + "/node" + std::to_string(i));
    bool alive = Alive(pid);
    up += alive;
    if (!as_json) std::printf("node%-4d %-14s %-8d %s\n", i, Address(i).c_str(), pid, alive ? "up" : "down");
    nodes.push_back(
        {{"node", i}, {"pid", pid}, {"state", alive ? "up" : "down"}, {"mount", s.mount}, {"address", Address(i)}});
  }
  if (as_json) std::printf("%s\n", nodes.dump(2).c_str());
  return up == s.nodes ? Status::Ok() : Status(EIO, std::to_string(s.nodes - up) + " nodes are down");
}

Status EmulateKill(int node) {
  BB_RETURN_IF_ERROR(NeedRoot());
  BB_ASSIGN_OR_RETURN(State s, ReadState());
  if (node < 0 || node >= s.nodes) return Status(EINVAL, "no node " + std::to_string(node));
  pid_t pid = DaemonPid(s.root + "/node" + std::to_string(node));
  if (Alive(pid)) ::kill(pid, SIGKILL);
  for (int i = 0; i < 250 && Alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  (void)Run({"nsenter", "--mount=" + MntNs(node), "--", "umount", "-l", s.mount}, true);
  std::printf("bbctl: node %d killed\n", node);
  return Status::Ok();
}

Status EmulateRestart(int node) {
  BB_RETURN_IF_ERROR(NeedRoot());
  BB_ASSIGN_OR_RETURN(State s, ReadState());
  if (node < 0 || node >= s.nodes) return Status(EINVAL, "no node " + std::to_string(node));
  BB_ASSIGN_OR_RETURN(pid_t pid, SpawnDaemon(s, node));
  if (Wait(pid) != 0) return Status(EIO, "node " + std::to_string(node) + " did not start");
  std::printf("bbctl: node %d restarted\n", node);
  return Status::Ok();
}

Status EnterNode(int node) {
  pid_t holder = -1;
  std::ifstream(HolderFile(node)) >> holder;
  std::string ns = holder > 0 ? "/proc/" + std::to_string(holder) + "/ns/mnt" : MntNs(node);
  int fd = ::open(ns.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(errno, "cannot open " + ns + " (node " + std::to_string(node) + "'s mount namespace)");
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  int rc = ::setns(fd, CLONE_NEWNS);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Status(err, "cannot enter node " + std::to_string(node) + "'s mount namespace");
  if (::chdir(cwd.c_str()) != 0) (void)!::chdir("/");
  ::setenv("BB_NODE", std::to_string(node).c_str(), 1);
  return Status::Ok();
}

Result<int> Exec(int node, const std::vector<std::string>& cmd) {
  BB_ASSIGN_OR_RETURN(State s, ReadState());
  if (node < 0) {
    const char* rank = nullptr;
    for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
      if ((rank = std::getenv(var)) != nullptr) break;
    }
    if (rank == nullptr) {
      return Status(EINVAL, "--by-rank: none of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID is set");
    }
    node = std::atoi(rank) % s.nodes;
  }
  if (node >= s.nodes) {
    return Status(EINVAL, "no node " + std::to_string(node) + " (the cluster has " + std::to_string(s.nodes) + ")");
  }
  if (cmd.empty()) return Status(EINVAL, "no command given after --");
  BB_RETURN_IF_ERROR(EnterNode(node));
  std::vector<char*> argv;
  for (const auto& a : cmd) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  return Status(errno, "cannot run " + cmd[0]);
}

Result<EmulatedInfo> ReadEmulated() {
  BB_ASSIGN_OR_RETURN(State s, ReadState());
  return EmulatedInfo{s.nodes, s.root, s.mount};
}

std::string EmulatedRunDir() { return kRunDir; }

}  // namespace bb::ctl
