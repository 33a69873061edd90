#include "tools/bbctl/emulator/emulate_slurm.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tools/bbctl/proc.h"

namespace bb::ctl {
namespace {

constexpr const char* kControllerAddress = "198.19.255.254";
constexpr const char* kMungeSocketDir = "/run/munge";

std::string SlurmDir(const std::string& run_dir) { return run_dir + "/slurm"; }

std::string ShortHostName() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

std::string Conf(const SlurmEmulation& e) {
  const std::string d = SlurmDir(e.run_dir);
  std::ostringstream c;
  c << "# The emulated cluster's Slurm (bbctl emulate up --slurm).\n"
    << "ClusterName=bbemu\nSlurmctldHost=" << ShortHostName() << "(" << kControllerAddress << ")\n"
    << "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\n"
    << "StateSaveLocation=" << d << "/ctld\nSlurmdSpoolDir=" << d << "/spool-%n\n"
    << "SlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d << "/slurmd-%n.pid\n"
    << "SlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd-%n.log\n"
    << "SlurmctldPort=6817\nSlurmdPort=6818\n"
    // No cgroups: the nodes share the host's; processes are tracked by parentage.
    << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nMpiDefault=none\n"
    << "SchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
    << "SlurmdParameters=config_overrides\nReturnToService=2\n"
    << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
    << "SlurmctldTimeout=30\nSlurmdTimeout=30\nInactiveLimit=0\nKillWait=5\nMinJobAge=600\n";
  if (e.hooks) {
    c << "Prolog=" << d << "/bb-prolog\nEpilog=" << d << "/bb-epilog\nTaskProlog=" << d << "/bb-task-prolog\n"
      << "PrologFlags=Alloc\nJobSubmitPlugins=lua\n"  // job_submit.lua beside slurm.conf: #BB checked at sbatch
      << "PrologEpilogTimeout=120\n";                 // the hooks stage within it (tools/jobs/stage_limit.h)
  }
  std::string names;
  for (const auto& n : e.nodes) {
    c << "NodeName=" << n.name << " NodeAddr=" << n.address << " CPUs=8 RealMemory=2048 State=UNKNOWN\n";
    names += (names.empty() ? "" : ",") + n.name;
  }
  c << "PartitionName=bb Nodes=" << names << " Default=YES MaxTime=INFINITE State=UP\n";
  return c.str();
}

// The hooks' settings: everything a job's burst buffer needs on the emulated nodes.
std::string HookEnv(const SlurmEmulation& e) {
  std::ostringstream c;
  c << "BB_BIN=" << SelfDir() << "\nBB_STATE_DIR=" << e.root << "/bb-jobs\nBB_LOCAL_DIR=" << e.root
    << "/local/%n\nBB_MOUNT_DIR=" << e.mount << "\nBB_PORT=0\nBB_DEADLINE=60\n"
    << "BB_SUBMIT_MARK=on\n"  // job_submit.lua is installed
    << "BB_BBD_ARGS=\"--rpc-poll-spin 0\"\n"
    << "# TCP only, on the nodes' shaped links.\nexport UCX_TLS=tcp UCX_NET_DEVICES=eth0\n";
  return c.str();
}

Status StartMunge(const std::string& dir) {
  if (Run({"munge", "-n"}, true) == 0) return Status::Ok();  // one is running
  std::error_code ec;
  if (!std::filesystem::exists("/etc/munge/munge.key")) {
    BB_RETURN_IF_ERROR(RunOk({"runuser", "-u", "munge", "--", "mungekey", "--create"}, true));
  }
  std::filesystem::create_directories(kMungeSocketDir, ec);
  BB_RETURN_IF_ERROR(RunOk({"chown", "munge:munge", kMungeSocketDir}, true));
  BB_RETURN_IF_ERROR(RunOk({"runuser", "-u", "munge", "--", "munged"}, true));
  std::ofstream(dir + "/munged.started").flush();
  for (int i = 0; i < 100; ++i) {
    if (Run({"munge", "-n"}, true) == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status(EIO, "munged did not start");
}

Status InstallHooks(const SlurmEmulation& e) {
  const std::string d = SlurmDir(e.run_dir);
  std::string hook = SelfDir() + "/../share/bbfs/slurm/bb-hook.sh";
  if (!std::filesystem::exists(hook)) return Status(ENOENT, "no Slurm hook script at " + hook);
  std::error_code ec;
  for (const char* name : {"bb-prolog", "bb-epilog", "bb-task-prolog"}) {
    std::filesystem::copy_file(hook, d + "/" + name, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return Status(EIO, "cannot copy " + hook + ": " + ec.message());
    std::filesystem::permissions(d + "/" + name, std::filesystem::perms(0755), ec);
  }
  std::ofstream(d + "/bb-slurm.env") << HookEnv(e);
  // The submit-time check, with this build's bbctl in place of the package's.
  std::ifstream lua_in(SelfDir() + "/../share/bbfs/slurm/job_submit.lua");
  if (!lua_in) return Status(ENOENT, "no job_submit.lua beside the hook script");
  std::ostringstream lua;
  lua << lua_in.rdbuf();
  std::string text = lua.str();
  const std::string from = "local BBCTL = \"/usr/bin/bbctl\"";
  if (size_t at = text.find(from); at != std::string::npos) {
    text.replace(at, from.size(), "local BBCTL = \"" + SelfDir() + "/bbctl\"");
  }
  std::ofstream(d + "/job_submit.lua") << text;
  return Status::Ok();
}

// True once sinfo reports every node idle.
bool AllIdle(const SlurmEmulation& e) {
  auto out = Capture({"sinfo", "-h", "-N", "-o", "%t"});
  if (!out) return false;
  std::istringstream in(*out);
  size_t idle = 0;
  for (std::string s; in >> s;) idle += s == "idle";
  return idle == e.nodes.size();
}

}  // namespace

std::string SlurmConfPath(const std::string& run_dir) { return SlurmDir(run_dir) + "/slurm.conf"; }

Status StartSlurm(const SlurmEmulation& e) {
  const std::string d = SlurmDir(e.run_dir);
  std::error_code ec;
  std::filesystem::create_directories(d + "/ctld", ec);
  std::filesystem::create_directories(e.root + "/bb-jobs", ec);
  BB_RETURN_IF_ERROR(RunOk({"ip", "addr", "add", std::string(kControllerAddress) + "/15", "dev", e.bridge}, true));
  std::ofstream(SlurmConfPath(e.run_dir)) << Conf(e);
  BB_RETURN_IF_ERROR(InstallHooks(e));
  ::setenv("SLURM_CONF", SlurmConfPath(e.run_dir).c_str(), 1);
  BB_RETURN_IF_ERROR(StartMunge(d));
  BB_RETURN_IF_ERROR(RunOk({"slurmctld", "-f", SlurmConfPath(e.run_dir)}, true));
  for (const auto& n : e.nodes) {
    BB_RETURN_IF_ERROR(RunOk({"nsenter", "--net=" + n.netns, "--mount=" + n.mntns, "--", "slurmd", "-f",
                              SlurmConfPath(e.run_dir), "-N", n.name},
                             true));
  }
  for (int i = 0; i < 600; ++i) {
    if (AllIdle(e)) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Status(ETIMEDOUT, "Slurm's nodes are not idle after 60 s (see " + d + "/slurmctld.log)");
}

void StopSlurm(const std::string& run_dir) {
  const std::string d = SlurmDir(run_dir);
  pid_t ctld = -1;
  std::ifstream(d + "/slurmctld.pid") >> ctld;
  if (ctld > 0) Terminate(ctld, 10);
  if (std::filesystem::exists(d + "/munged.started")) {
    pid_t munged = -1;
    std::ifstream("/run/munge/munged.pid") >> munged;
    if (munged > 0) Terminate(munged, 5);
  }
}

}  // namespace bb::ctl
