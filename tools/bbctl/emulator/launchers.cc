// The job's srun, mpirun/mpiexec and scontrol on the emulated cluster, and the task they start
// (job_run.h).
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tools/bbctl/cluster.h"
#include "tools/bbctl/emulator/job_run.h"
#include "tools/bbctl/proc.h"
#include "tools/jobs/launch_args.h"
#include "tools/jobs/placement.h"

namespace bb::ctl {
namespace {

int Fail(const std::string& who, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", who.c_str(), s.message().c_str());
  return 1;
}

int EnvInt(const char* name, int otherwise) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : otherwise;
}

// The job's folder on the emulated cluster ("" outside a job).
std::string JobDir() {
  const char* d = std::getenv("BB_EMU_JOB_DIR");
  return d != nullptr ? d : "";
}

// The allocation this step runs in, from the job's environment.
Result<jobs::JobEnv> JobOfEnvironment() {
  if (JobDir().empty()) {
    return Status(EINVAL, "not inside a job of the emulated cluster (run the script with bbctl job run)");
  }
  jobs::JobEnv j;
  j.nodes = EnvInt("SLURM_NNODES", 1);
  j.tasks = EnvInt("SLURM_NTASKS", j.nodes);
  j.tasks_per_node = EnvInt("SLURM_NTASKS_PER_NODE", 0);
  if (const char* d = std::getenv("SLURM_DISTRIBUTION")) {
    auto dist = jobs::ParseDistribution(d);
    if (dist) j.distribution = *dist;
  }
  return j;
}

// The next step id of the job (a counter in the job's folder).
int NextStep() {
  std::string path = JobDir() + "/next_step";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return 0;
  ::flock(fd, LOCK_EX);
  char buf[32] = {0};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  int step = n > 0 ? std::atoi(buf) : 0;
  std::string next = std::to_string(step + 1) + "\n";
  (void)!::ftruncate(fd, 0);
  (void)!::pwrite(fd, next.data(), next.size(), 0);
  ::close(fd);
  return step;
}

// Open MPI's mpirun: the first one on PATH that is not the job's own launcher.
std::string RealMpirun() {
  std::string own = JobDir() + "/bin";
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');) {
    if (dir.empty() || dir == own) continue;
    std::string candidate = dir + "/mpirun";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "/usr/bin/mpirun";
}

// The folder where the tasks of `step` leave their exit statuses ("" outside a job: none).
std::string StepDir(const std::string& step) { return JobDir().empty() ? "" : JobDir() + "/step." + step; }

// The process the signals that reach this one go on to (0: none yet).
volatile sig_atomic_t forward_to = 0;
void Forward(int sig) {
  if (forward_to > 0) ::kill(forward_to, sig);
}
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
void ForwardSignalsTo(pid_t pid) {
  forward_to = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  for (int sig : kForwarded) ::sigaction(sig, &sa, nullptr);
}

// An exit code as a shell reports it (128 + the signal for a killed process).
int CodeOf(int wstatus) { return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus); }

// Whether `pid` has a child now (any of its threads').
bool HasChildren(pid_t pid) {
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream f(t.path() / "children");
    std::string any;
    if (f >> any) return true;
  }
  return false;
}

// What the tasks of a step that mpirun did not end left: the highest exit code, as srun gives,
// or 1 when a task left none (it was killed before it could).
int StepStatus(const std::string& dir, int tasks) {
  int worst = 0, found = 0;
  for (int r = 0; r < tasks; ++r) {
    std::ifstream f(dir + "/" + std::to_string(r));
    int code = 0;
    if (f >> code) {
      ++found;
      worst = std::max(worst, code);
    }
  }
  return found < tasks ? std::max(worst, 1) : worst;
}

// Runs a task's program as a child that dies with this process, passing on the signals mpirun
// sends; leaves its exit status in `status_dir` (as file `rank`) and ends as it did.
int RunTask(std::vector<char*>& argv, int status_dir, int rank) {
  pid_t self = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Fail("bbctl task", Status(errno, "cannot start " + std::string(argv[0])));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != self) ::_exit(137);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "bbctl task: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ForwardSignalsTo(pid);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (status_dir >= 0) {
    std::string code = std::to_string(CodeOf(wstatus)) + "\n";
    int fd = ::openat(status_dir, std::to_string(rank).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, code.data(), code.size());
      ::close(fd);
    }
  }
  if (WIFSIGNALED(wstatus)) {  // ends as the program did
    ::signal(WTERMSIG(wstatus), SIG_DFL);
    ::raise(WTERMSIG(wstatus));
  }
  return CodeOf(wstatus);
}

// Runs mpirun (`argv`) for `tasks` tasks of `step` and returns its exit status. Open MPI's
// mpirun may hang once a task exited non-zero (open-mpi/ompi#3380): when all its tasks are gone
// and it is still there after kGraceMs, it is killed and the step's status comes from what the
// tasks left (TaskMain). Signals to srun go on to mpirun.
int Supervise(const std::string& who, const std::vector<std::string>& argv, int step, int tasks) {
  constexpr int64_t kGraceMs = 5000;
  std::string dir = StepDir(std::to_string(step));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  auto spawned = Spawn(argv);
  if (!spawned) return Fail(who, spawned.error());
  pid_t pid = *spawned;
  ForwardSignalsTo(pid);
  bool had_tasks = false;
  auto gone_since = std::chrono::steady_clock::time_point::max();
  for (;;) {
    int wstatus = 0;
    pid_t r = ::waitpid(pid, &wstatus, WNOHANG);
    if (r == pid) return CodeOf(wstatus);
    if (r < 0 && errno != EINTR) return Fail(who, Status(errno, "waiting for " + argv[0]));
    auto now = std::chrono::steady_clock::now();
    if (HasChildren(pid)) {
      had_tasks = true;
      gone_since = std::chrono::steady_clock::time_point::max();
    } else if (had_tasks || !std::filesystem::is_empty(dir, ec)) {  // tasks ran (some too briefly to be seen)
      gone_since = std::min(gone_since, now);
      if (now - gone_since >= std::chrono::milliseconds(kGraceMs)) {
        ::kill(pid, SIGKILL);
        (void)Wait(pid);
        int code = StepStatus(dir, tasks);
        std::fprintf(stderr,
                     "%s: mpirun was still there %lld s after its last task ended; stopped it (step %d: exit %d)\n",
                     who.c_str(), static_cast<long long>(kGraceMs / 1000), step, code);
        return code;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// Runs the step: `shape` placed, every task through `bbctl task`, all as one MPI job.
int RunStep(const std::string& who, const jobs::StepShape& shape, const std::vector<std::string>& mpirun_opts,
            const std::vector<std::string>& program, const std::string& chdir) {
  auto place = jobs::PlaceTasks(shape);
  if (!place) return Fail(who, place.error());
  std::string map;
  for (int n : *place) map += (map.empty() ? "" : ",") + std::to_string(n);
  std::vector<std::string> argv = {RealMpirun(), "--allow-run-as-root",      "--oversubscribe", "--bind-to", "none",
                                   "-np",        std::to_string(shape.tasks)};
  argv.insert(argv.end(), mpirun_opts.begin(), mpirun_opts.end());
  int step = NextStep();
  argv.insert(argv.end(), {SelfDir() + "/bbctl", "task", "--map", map, "--step", std::to_string(step)});
  if (!chdir.empty()) argv.insert(argv.end(), {"--chdir", chdir});
  argv.push_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  // Open MPI would take the job's SLURM_* variables for a real allocation and launch through
  // srun on hosts node0..: every "node" is this host, so it starts the ranks itself.
  ::setenv("OMPI_MCA_plm", "isolated", 1);
  ::setenv("OMPI_MCA_ras", "^slurm", 1);
  ::setenv("OMPI_MCA_ess", "^slurm", 1);
  return Supervise(who, argv, step, shape.tasks);
}

int Srun(const std::vector<std::string>& args) {
  auto job = JobOfEnvironment();
  if (!job) return Fail("srun", job.error());
  auto a = jobs::ParseSrunArgs(args);
  if (!a) return Fail("srun", a.error());
  auto shape = jobs::SrunShape(*a, *job);
  if (!shape) return Fail("srun", shape.error());
  return RunStep("srun", *shape, {}, a->program, a->chdir);
}

int Mpirun(const std::string& who, const std::vector<std::string>& args) {
  auto job = JobOfEnvironment();
  if (!job) return Fail(who, job.error());
  auto a = jobs::ParseMpirunArgs(args);
  if (!a) return Fail(who, a.error());
  auto shape = jobs::MpirunShape(*a, *job);
  if (!shape) return Fail(who, shape.error());
  return RunStep(who, *shape, a->kept, a->program, "");
}

int Scontrol(const std::vector<std::string>& args) {
  if (args.size() >= 2 && args[0] == "show" && args[1] == "hostnames") {
    int nodes = EnvInt("SLURM_NNODES", 1);
    for (int i = 0; i < nodes; ++i) std::printf("node%d\n", i);
    return 0;
  }
  std::fprintf(stderr, "scontrol: only 'scontrol show hostnames' is there on the emulated cluster\n");
  return 1;
}

}  // namespace

int LauncherMain(const std::string& name, const std::vector<std::string>& args) {
  if (name == "srun") return Srun(args);
  if (name == "mpirun" || name == "mpiexec") return Mpirun(name, args);
  if (name == "scontrol") return Scontrol(args);
  std::fprintf(stderr, "bbctl: called as '%s'\n", name.c_str());
  return 1;
}

int TaskMain(const std::vector<std::string>& args) {
  std::vector<int> map;
  std::string step = "0", chdir;
  size_t i = 0;
  for (; i + 1 < args.size() && args[i] != "--"; i += 2) {
    if (args[i] == "--map") {
      std::stringstream ss(args[i + 1]);
      for (std::string n; std::getline(ss, n, ',');) map.push_back(std::atoi(n.c_str()));
    } else if (args[i] == "--step") {
      step = args[i + 1];
    } else if (args[i] == "--chdir") {
      chdir = args[i + 1];
    }
  }
  if (i >= args.size() || args[i] != "--" || i + 1 >= args.size() || map.empty()) {
    return Fail("bbctl task", Status(EINVAL, "usage: bbctl task --map N,N,... --step S [--chdir D] -- CMD..."));
  }
  int rank = EnvInt("OMPI_COMM_WORLD_RANK", EnvInt("PMIX_RANK", -1));
  if (rank < 0 || rank >= static_cast<int>(map.size())) {
    return Fail("bbctl task", Status(EINVAL, "no rank of this step (OMPI_COMM_WORLD_RANK) in the map"));
  }
  int node = map[rank], local = 0, nodes = 0;
  for (int r = 0; r < rank; ++r) local += map[r] == node;
  for (int n : map) nodes = std::max(nodes, n + 1);
  std::string tasks = std::to_string(map.size());
  const std::vector<std::pair<const char*, std::string>> env = {
      {"SLURM_PROCID", std::to_string(rank)},
      {"SLURM_LOCALID", std::to_string(local)},
      {"SLURM_NODEID", std::to_string(node)},
      {"SLURMD_NODENAME", "node" + std::to_string(node)},
      {"SLURM_STEP_ID", step},
      {"SLURM_STEPID", step},
      {"SLURM_NTASKS", tasks},
      {"SLURM_NPROCS", tasks},
      {"SLURM_STEP_NUM_TASKS", tasks},
      {"SLURM_STEP_NUM_NODES", std::to_string(nodes)},
      {"SLURM_STEP_NODELIST", jobs::HostList("node", nodes)},
      {"SLURM_STEP_TASKS_PER_NODE", jobs::TasksPerNode(map, nodes)},
  };
  for (const auto& [k, v] : env) ::setenv(k, v.c_str(), 1);
  // Where the exit status goes (the folder is the host's, opened before the node's namespaces).
  int status_dir = ::open(StepDir(step).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Status s = EnterNode(node); !s.ok()) return Fail("bbctl task", s);
  if (!chdir.empty() && ::chdir(chdir.c_str()) != 0) return Fail("bbctl task", Status(errno, "cannot enter " + chdir));
  std::vector<char*> argv;
  for (size_t k = i + 1; k < args.size(); ++k) argv.push_back(const_cast<char*>(args[k].c_str()));
  argv.push_back(nullptr);
  return RunTask(argv, status_dir, rank);
}

}  // namespace bb::ctl
