// bbctl job run: a Slurm batch script on the emulated cluster (job_run.h).
#include "tools/bbctl/emulator/job_run.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "fs/core/placement/workspace.h"
#include "tools/bbctl/cluster.h"
#include "tools/bbctl/emulator/job_cgroup.h"
#include "tools/bbctl/emulator/job_select.h"
#include "tools/bbctl/proc.h"
#include "tools/config/yaml.h"
#include "tools/jobs/batch_script.h"
#include "tools/jobs/profile_doc.h"

namespace bb::ctl {
namespace {

using nlohmann::json;
constexpr int kQuickMs = 10000;
constexpr int kLongMs = 600000;

// A job id unique on this host: a counter in the emulated cluster's state folder.
std::string NextJobId() {
  std::string path = EmulatedRunDir() + "/next_job_id";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return std::to_string(::getpid());
  ::flock(fd, LOCK_EX);
  char buf[32] = {0};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  long id = n > 0 ? std::atol(buf) : 0;
  id = id > 0 ? id + 1 : 1;
  std::string text = std::to_string(id) + "\n";
  (void)!::ftruncate(fd, 0);
  (void)!::pwrite(fd, text.data(), text.size(), 0);
  ::close(fd);
  return std::to_string(id);
}

Result<config::ModeFile> ModeOf(const JobRunOptions& o) {
  if ((o.mode != 0) == !o.mode_file.empty()) return Status(EINVAL, "give exactly one of --mode N and --mode-file FILE");
  if (!o.mode_file.empty()) return config::LoadModeFile(o.mode_file);
  const fs::ModeInfo* mode = fs::FindMode(o.mode);
  if (mode == nullptr) return Status(EINVAL, "--mode must be " + fs::ModeNumbers());
  config::ModeFile m;
  m.spec.layout.mode = mode->mode;
  m.reason = "given on the command line";
  return m;
}

// The folder of the job's launchers: srun, mpirun, mpiexec and scontrol, all bbctl.
Result<std::string> MakeLauncherDir(const std::string& id) {
  std::string dir = EmulatedRunDir() + "/jobs/" + id;
  std::error_code ec;
  std::filesystem::create_directories(dir + "/bin", ec);
  if (ec) return Status(ec.value(), "cannot create " + dir + ": " + ec.message());
  std::string self = SelfDir() + "/bbctl";
  for (const char* name : {"srun", "mpirun", "mpiexec", "scontrol"}) {
    std::filesystem::create_symlink(self, dir + "/bin/" + name, ec);
  }
  return dir;
}

// The environment of a Slurm batch step, and BB_MOUNT/BB_WORKSPACE.
std::map<std::string, std::string> BatchEnv(const JobRunOptions& o, const EmulatedInfo& c, const jobs::JobShape& j,
                                            const jobs::BatchOptions& b, const std::string& id,
                                            const std::string& dir) {
  auto place =
      jobs::PlaceTasks({j.nodes, j.tasks, j.tasks_per_node, b.distribution.value_or(jobs::Distribution::kBlock)});
  std::string nodelist = jobs::HostList("node", j.nodes);
  std::error_code ec;
  std::map<std::string, std::string> env = {
      {"SLURM_JOB_ID", id},
      {"SLURM_JOBID", id},
      {"SLURM_JOB_NAME", b.job_name.empty() ? o.name : b.job_name},
      {"SLURM_NNODES", std::to_string(j.nodes)},
      {"SLURM_JOB_NUM_NODES", std::to_string(j.nodes)},
      {"SLURM_NTASKS", std::to_string(j.tasks)},
      {"SLURM_NPROCS", std::to_string(j.tasks)},
      {"SLURM_TASKS_PER_NODE", place ? jobs::TasksPerNode(*place, j.nodes) : "1"},
      {"SLURM_JOB_NODELIST", nodelist},
      {"SLURM_NODELIST", nodelist},
      {"SLURM_SUBMIT_DIR", std::filesystem::current_path(ec).string()},
      {"SLURM_SUBMIT_HOST", "node0"},
      {"SLURM_CLUSTER_NAME", "bb-emu"},
      {"SLURMD_NODENAME", "node0"},
      {"SLURM_NODEID", "0"},
      {"SLURM_PROCID", "0"},
      {"SLURM_LOCALID", "0"},
      {"BB_MOUNT", c.mount + "/" + o.name},
      {"BB_WORKSPACE", o.name},
      {"BB_EMU_JOB", id},
      {"BB_EMU_JOB_DIR", dir},
      {"OMPI_ALLOW_RUN_AS_ROOT", "1"},
      {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
      {"PATH", dir + "/bin:" + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin")},
  };
  if (j.tasks_per_node > 0) env["SLURM_NTASKS_PER_NODE"] = std::to_string(j.tasks_per_node);
  if (b.distribution) env["SLURM_DISTRIBUTION"] = *b.distribution == jobs::Distribution::kCyclic ? "cyclic" : "block";
  return env;
}

// The interpreter line of the script, as sbatch demands one: {interpreter, argument?}.
Result<std::vector<std::string>> Interpreter(const std::string& text, const std::string& script) {
  if (text.rfind("#!", 0) != 0) {
    return Status(EINVAL, script + ": this does not look like a batch script: the first line must start with #!");
  }
  std::string line = text.substr(2, text.find('\n') - 2);
  std::vector<std::string> words;
  size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos) return Status(EINVAL, script + ":1: #! names no interpreter");
  size_t end = line.find_first_of(" \t", at);
  words.push_back(line.substr(at, end - at));
  if (end != std::string::npos && line.find_first_not_of(" \t", end) != std::string::npos) {
    std::string arg = line.substr(line.find_first_not_of(" \t", end));
    arg = arg.substr(0, arg.find_last_not_of(" \t\r") + 1);
    words.push_back(arg);
  }
  return words;
}

// Forks the batch shell into the job's cgroup on node 0; returns its pid.
Result<pid_t> StartBatch(const JobRunOptions& o, const std::vector<std::string>& interp,
                         const std::map<std::string, std::string>& env, JobCgroup& cg) {
  std::vector<std::string> argv = interp;
  argv.push_back(std::filesystem::absolute(o.script).string());
  argv.insert(argv.end(), o.args.begin(), o.args.end());
  pid_t pid = ::fork();
  if (pid < 0) return Status(errno, "fork");
  if (pid == 0) {
    if (!cg.path().empty()) std::ofstream(cg.path() + "/cgroup.procs") << "0\n";
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    if (Status s = EnterNode(0); !s.ok()) {
      std::fprintf(stderr, "bbctl: %s\n", s.message().c_str());
      std::_Exit(127);
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "bbctl: cannot run %s: %s\n", args[0], std::strerror(errno));
    std::_Exit(127);
  }
  cg.Join(pid);
  return pid;
}

// Waits for the batch shell until `timeout_s` (0: no limit). The exit status, or nullopt at
// the time limit. Reaps the job's orphans meanwhile (this process is their subreaper).
std::optional<int> WaitBatch(pid_t pid, int timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    int st = 0;
    pid_t got;
    while ((got = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (got == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    if (got < 0 && errno == ECHILD) return 127;
    if (timeout_s > 0 && std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// Workspace `name` on the cluster: made with `mode` unless it exists. True when made here.
Result<bool> EnsureWorkspace(const std::vector<std::string>& sockets, const std::string& name,
                             const config::ModeFile& mode) {
  BB_ASSIGN_OR_RETURN(json list, Ask(sockets.front(), {{"cmd", "job_list"}}, kQuickMs));
  for (const json& j : list["jobs"]) {
    if (j.value("name", std::string()) == name) return false;
  }
  BB_RETURN_IF_ERROR(Ask(sockets.front(), JobStartRequest(name, mode), kLongMs).status());
  return true;
}

// Stops the profile on every node and writes the merged document to `out`.
Status WriteProfile(const std::vector<std::string>& sockets, const std::string& name, const json& job,
                    const std::string& out) {
  std::vector<json> nodes;
  for (size_t i = 0; i < sockets.size(); ++i) {
    BB_ASSIGN_OR_RETURN(json r, Ask(sockets[i], {{"cmd", "profile_stop"}, {"name", name}}, kLongMs));
    nodes.push_back(std::move(r["profile"]));
  }
  BB_ASSIGN_OR_RETURN(json doc, jobs::MergeProfiles(nodes, job));
  std::ofstream f(out);
  f << doc.dump(1) << "\n";
  if (!f.flush()) return Status(EIO, "cannot write the profile to " + out);
  return Status::Ok();
}

// Runs the batch shell in job r->job_id's cgroup until it ends or `timeout` seconds (0: none)
// pass, then kills what the job left running on every node, as Slurm does at the end of a job.
Status RunBatch(const JobRunOptions& o, const std::vector<std::string>& interp,
                const std::map<std::string, std::string>& env, int timeout, JobRunResult* r) {
  JobCgroup cg(r->job_id);
  BB_RETURN_IF_ERROR(cg.Create());
  auto start = std::chrono::steady_clock::now();
  BB_ASSIGN_OR_RETURN(pid_t pid, StartBatch(o, interp, env, cg));
  std::optional<int> status = WaitBatch(pid, timeout);
  r->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r->timed_out = !status.has_value();
  r->exit_status = status.value_or(124);
  cg.KillAll();
  while (::waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  return Status::Ok();
}

// The job, with the status of its profile apart (`profile`: Ok when none was asked for).
Result<JobRunResult> RunJob(const JobRunOptions& o, Status* profile) {
  BB_ASSIGN_OR_RETURN(EmulatedInfo cluster, ReadEmulated());
  BB_RETURN_IF_ERROR(fs::ValidateWorkspaceName(o.name));
  BB_ASSIGN_OR_RETURN(std::string text, config::ReadTextFile(o.script, "job script"));
  BB_ASSIGN_OR_RETURN(auto interp, Interpreter(text, o.script));
  BB_ASSIGN_OR_RETURN(jobs::BatchOptions batch, jobs::ParseBatchDirectives(text, o.script));
  if (o.nodes > 0) batch.nodes = o.nodes;
  if (o.tasks_per_node > 0) batch.ntasks_per_node = o.tasks_per_node;
  BB_ASSIGN_OR_RETURN(jobs::JobShape shape, jobs::ShapeJob(batch, cluster.nodes));
  BB_ASSIGN_OR_RETURN(config::ModeFile mode, ModeOf(o));
  BB_ASSIGN_OR_RETURN(auto sockets, DaemonSockets(cluster.root));
  JobRunResult r;
  r.job_id = NextJobId();
  r.nodes = shape.nodes;
  r.tasks = shape.tasks;
  r.mode = fs::ModeNumber(mode.spec.layout.mode);
  BB_ASSIGN_OR_RETURN(std::string dir, MakeLauncherDir(r.job_id));
  BB_ASSIGN_OR_RETURN(bool made, EnsureWorkspace(sockets, o.name, mode));
  // Whatever happens from here, the workspace this run made goes (unless kept) and so does the
  // launchers' folder.
  struct Cleanup {
    std::function<void()> run;
    ~Cleanup() { run(); }
  } cleanup{[&] {
    if (!o.profile_out.empty()) {  // no node keeps counting for a workspace that goes
      for (const auto& s : sockets) (void)Ask(s, {{"cmd", "profile_stop"}, {"name", o.name}}, kQuickMs);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    if (made && !o.keep) (void)Ask(sockets.front(), {{"cmd", "job_stop"}, {"name", o.name}}, kLongMs);
  }};
  if (!o.profile_out.empty()) {
    for (const auto& s : sockets)
      BB_RETURN_IF_ERROR(Ask(s, {{"cmd", "profile_start"}, {"name", o.name}}, kQuickMs).status());
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  int timeout = o.timeout_s > 0 ? o.timeout_s : batch.time_limit_s.value_or(0);
  BB_RETURN_IF_ERROR(RunBatch(o, interp, BatchEnv(o, cluster, shape, batch, r.job_id, dir), timeout, &r));
  if (!o.profile_out.empty()) {
    json job = {{"name", o.name},
                {"mode", r.mode},
                {"nodes", r.nodes},
                {"tasks", r.tasks},
                {"tasks_per_node", shape.tasks_per_node},
                {"wall_seconds", r.wall_seconds},
                {"exit_status", r.exit_status},
                {"script", o.script}};
    *profile = WriteProfile(sockets, o.name, job, o.profile_out);
  }
  return r;
}

}  // namespace

Result<JobRunResult> JobRun(const JobRunOptions& o) {
  Status profile;
  BB_ASSIGN_OR_RETURN(JobRunResult r, RunJob(o, &profile));
  BB_RETURN_IF_ERROR(profile);
  return r;
}

Result<JobRunResult> SelectAndRun(const JobRunOptions& o, JobRunResult* probe, jobs::Selection* selection) {
  char tmpl[] = "/tmp/bb-select-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return Status(errno, "cannot make a folder for the probe's profile");
  std::string dir = tmpl;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir};
  JobRunOptions p = o;
  p.mode = 3;
  p.mode_file.clear();
  p.keep = false;
  p.profile_out = o.profile_out.empty() ? dir + "/probe.json" : o.profile_out;
  Status profile;
  BB_ASSIGN_OR_RETURN(*probe, RunJob(p, &profile));
  std::fprintf(stderr, "bbctl: probe run (mode 3) of %s: exit %d after %.2f s\n", o.name.c_str(), probe->exit_status,
               probe->wall_seconds);
  std::string mode_file = dir + "/mode.yaml";
  if (profile.ok()) {
    std::vector<std::string> argv = {
        SelfDir() + "/bb-modeselect", "--job", o.script,  "--profile", p.profile_out, "--nodes",
        std::to_string(probe->nodes), "--out", mode_file, "--json"};
    *selection = ChooseMode(argv, mode_file);
  } else {
    jobs::SelectorRun none;
    none.error = "no profile of the probe run: " + profile.message();
    *selection = TakeSelection(none, mode_file);
  }
  JobRunOptions run = o;
  run.mode = 0;
  run.mode_file = mode_file;
  run.profile_out.clear();
  if (selection->fallback && !config::LoadModeFile(mode_file)) {  // the mode file could not be written
    run.mode = 3;
    run.mode_file.clear();
  }
  return JobRun(run);
}

}  // namespace bb::ctl
