// The burst buffer's Slurm steps (burst.h): prolog, task-env, epilog, and the job-script form.
#include "tools/bbctl/slurm/burst.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fs/base/auth.h"
#include "fs/base/mounts.h"
#include "fs/base/units.h"
#include "tools/bbctl/proc.h"
#include "tools/bbctl/slurm/burst_history.h"
#include "tools/bbctl/slurm/burst_job.h"
#include "tools/bbctl/slurm/burst_prolog.h"
#include "tools/jobs/stage_limit.h"

namespace bb::ctl {
namespace {

using Clock = std::chrono::steady_clock;

// This node's copy of the job's cluster key, on local storage (`<root>.key`: root's, 0600), for
// its daemon, which takes only a key file of its own user: a root-squashed state folder's files
// are nobody's. The first node to get here makes the key in the state folder (whole before it has
// its name), the others read it there; it must be 0600 and of the state folder's owner.
Result<std::string> LocalKey(const BurstJob& j) {
  const std::string shared = j.state + "/hosts.key", local = j.root + ".key";
  Status made = auth::CreateKey(shared, /*replace=*/false);
  if (!made.ok() && made.code() != EEXIST) return made;
  int fd = ::open(shared.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status(errno, "cluster key " + shared + ": " + std::strerror(errno));
  struct stat st {
  }, folder{};
  char text[130];
  ssize_t n = ::fstat(fd, &st) == 0 ? ::read(fd, text, sizeof text) : -1;
  ::close(fd);
  if (n < 0 || ::stat(j.state.c_str(), &folder) != 0) return Status(EIO, "cluster key " + shared + ": cannot read it");
  if (!S_ISREG(st.st_mode) || (st.st_mode & 077) != 0 || st.st_uid != folder.st_uid) {
    return Status(EACCES, "cluster key " + shared +
                              " must be a regular file of mode 0600 owned as the job's state "
                              "folder is (uid " +
                              std::to_string(folder.st_uid) + ")");
  }
  std::error_code ec;
  std::filesystem::remove(local, ec);
  int out = ::open(local.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) return Status(errno, "cannot write " + local + ": " + std::strerror(errno));
  bool ok = ::write(out, text, static_cast<size_t>(n)) == n;
  ::close(out);
  if (!ok) return Status(EIO, "cannot write " + local);
  return local;
}

// This node's root, mount and daemon, mounted once every node of the job has joined.
Status StartNode(const BurstOptions& o, const BurstJob& j) {
  std::error_code ec;
  std::filesystem::remove_all(j.root, ec);  // a leftover of this job id
  std::filesystem::create_directories(std::filesystem::path(j.root).parent_path(), ec);
  if (::mkdir(j.root.c_str(), 0700) != 0)
    return Status(errno, "cannot create the root " + j.root + ": " + std::strerror(errno));
  std::filesystem::create_directories(j.mount, ec);
  if (ec) return Status(EIO, "cannot create the mount point " + j.mount + ": " + ec.message());
  BB_ASSIGN_OR_RETURN(std::string addr, NodeAddress(j.node));
  BB_ASSIGN_OR_RETURN(std::string key, LocalKey(j));
  // Port 0: one per job id, so that jobs sharing a node do not collide.
  const int port = o.port > 0 ? o.port : 7100 + static_cast<int>(std::strtoul(j.slurm.id.c_str(), nullptr, 10) % 800);
  std::vector<std::string> argv = {"sh",
                                   "-c",
                                   "exec \"$0\" \"$@\" 2>&1",
                                   Beside("bbd"),
                                   "--root",
                                   j.root,
                                   "--mount",
                                   j.mount,
                                   "--hosts-file",
                                   j.state + "/hosts",
                                   "--cluster-key-file",
                                   key,
                                   "--node-name",
                                   j.node,
                                   "--listen",
                                   addr + ":" + std::to_string(port),
                                   "--nodes",
                                   std::to_string(j.nodes.size())};
  argv.insert(argv.end(), o.bbd_args.begin(), o.bbd_args.end());
  const std::string out = j.state + "/bbd." + j.node + ".out";
  BB_ASSIGN_OR_RETURN(pid_t pid, Spawn(argv, {}, false, out));
  auto until = Clock::now() + std::chrono::seconds(o.deadline_s);
  for (;;) {
    int rc = TryWait(pid);
    if (rc == 0) return Status::Ok();
    if (rc != -2) return Status(EIO, "bbd did not start (exit " + std::to_string(rc) + "): " + LastLine(out));
    if (auto failed = Failures(j); !failed.empty()) {
      Terminate(pid, 5);
      return Status(ECANCELED, "gave up: " + failed.front());
    }
    if (Clock::now() > until) {
      Terminate(pid, 5);
      std::string log = LastLine(j.root + "/bbd.log");
      return Status(ETIMEDOUT, "not mounted within " + std::to_string(o.deadline_s) + " s" +
                                   (log.empty() ? "" : " (bbd: " + log + ")"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// The first node: the mode file, the workspace (the job's user's), stage-in, then `env`.
Status PrepareWorkspace(const BurstOptions& o, const BurstJob& j, const jobs::BbRequest& req,
                        const std::string& script_text, PrologClock* clock) {
  const std::string mode_file = j.state + "/mode.yaml";
  WriteModeFile(j, req, script_text, mode_file);
  const std::string name = "job" + j.slurm.id;
  BB_RETURN_IF_ERROR(
      RunLogged({Beside("bbctl"), "job", "start", "--name", name, "--mode-file", mode_file, "--root", j.root},
                "workspace " + name));
  if (::geteuid() == 0 && ::chown(j.workspace.c_str(), j.slurm.uid, j.slurm.gid) != 0) {
    return Status(errno, "cannot give " + j.workspace + " to uid " + std::to_string(j.slurm.uid));
  }
  std::ofstream(j.state + "/workspace").flush();  // node-private staging may begin on every node
  BB_RETURN_IF_ERROR(StageIn(o, j, req, clock));
  if (NodePrivateStaging(j, req) && !req.stage_in.empty()) BB_RETURN_IF_ERROR(WaitForNodesStagingIn(j, clock));
  if (req.mode == 0) BB_RETURN_IF_ERROR(StartProfile(j).Annotate("the I/O profile of the workspace"));
  std::ofstream env(j.state + "/env.tmp");
  env << "BB_MOUNT=" << j.mount << "\nBB_WORKSPACE=" << j.workspace << "\n";
  env.close();
  std::filesystem::rename(j.state + "/env.tmp", j.state + "/env");
  return Status::Ok();
}

// The arguments that give another bbctl bb step the same options.
std::vector<std::string> OptionArgs(const BurstOptions& o) {
  std::vector<std::string> a = {
      "--state-dir", o.state_dir, "--local-dir",          o.local_dir,  "--mount-dir",
      o.mount_dir,   "--port",    std::to_string(o.port), "--deadline", std::to_string(o.deadline_s)};
  if (!o.script.empty()) a.insert(a.end(), {"--script", std::filesystem::absolute(o.script).string()});
  if (!o.bbd_args.empty()) {
    a.push_back("--");
    a.insert(a.end(), o.bbd_args.begin(), o.bbd_args.end());
  }
  return a;
}

int OnEveryNode(const BurstOptions& o, const BurstJob& j, const std::string& step) {
  std::string n = std::to_string(j.nodes.size());
  std::vector<std::string> argv = {"srun",      "--nodes=" + n,         "--ntasks=" + n, "--ntasks-per-node=1",
                                   "--overlap", "--kill-on-bad-exit=0", Beside("bbctl"), "bb",
                                   step};
  auto rest = OptionArgs(o);
  argv.insert(argv.end(), rest.begin(), rest.end());
  return Run(argv);
}

// Whether Slurm's job asks for no burst buffer, known from job_submit.lua's mark (no call) or from
// its script; the script read, when it does, goes into `o` so it is not asked for again. A job
// without a #BB line costs at most this one call and none in the other hooks: Slurm runs them for
// every job.
bool AsksForNothing(BurstOptions* o) {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (!o->script.empty() || id == nullptr || Exists(o->state_dir + "/job." + id)) return false;
  if (o->submit_mark) {  // job_submit.lua marked every job with #BB lines: no mark, no call
    const char* comment = std::getenv("SLURM_JOB_COMMENT");
    if (comment == nullptr || std::strstr(comment, "[#BB]") == nullptr) return true;
  }
  auto text = Capture({"scontrol", "write", "batch_script", id, "-"});
  if (!text) return false;
  if (text->find("#BB") == std::string::npos) return true;
  o->script_text = *text;
  return false;
}

}  // namespace

Status BurstProlog(const BurstOptions& given) {
  BurstOptions o = given;
  PrologClock clock(o);
  if (AsksForNothing(&o)) return Status::Ok();
  BB_ASSIGN_OR_RETURN(BurstJob j, LoadBurstJob(o));
  std::string text;
  auto req = LoadRequest(o, j, &text);
  if (req && !req->wanted) return Status::Ok();  // no burst buffer asked for
  std::error_code ec;
  std::filesystem::create_directories(j.state, ec);
  if (ec) return Status(EIO, "cannot create the job's state folder " + j.state + ": " + ec.message());
  ::chmod(j.state.c_str(), 0755);
  if (!req) {
    RecordFailure(j, req.error().message());
    return Status::Ok();
  }
  if (j.first) {  // read by the epilog (as root): nothing reads it as the user, so it may be root-squashed
    BB_RETURN_IF_ERROR(WritePrivate(j.state + "/script", text));
  }

  auto t0 = std::chrono::steady_clock::now();
  Status s = StartNode(o, j);
  double mounted_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s.ok() && j.first) s = PrepareWorkspace(o, j, *req, text, &clock);
  if (s.ok() && !j.first && NodePrivateStaging(j, *req) && !req->stage_in.empty()) {
    // Mode 1: this node sees only its own files, so it stages in its own copy.
    const int wait_s = clock.Wait(kStagingWaitS);
    bool made = WaitFor(wait_s, [&] { return Exists(j.state + "/workspace") || !Failures(j).empty(); });
    s = !made ? Status(ETIMEDOUT, "the workspace was not made within " + std::to_string(wait_s) + " s")
        : Exists(j.state + "/workspace") ? StageIn(o, j, *req, &clock)
                                         : Status::Ok();
    if (s.ok()) std::ofstream(j.state + "/staged_in." + j.node).flush();
  }
  if (s.ok() && !j.first && req->mode == 0) {
    // mode=auto: this node's daemon counts the workspace too, once the first node made it.
    bool ready =
        WaitFor(clock.Wait(o.deadline_s * 10), [&] { return Exists(j.state + "/env") || !Failures(j).empty(); });
    if (ready && Exists(j.state + "/env")) s = StartProfile(j).Annotate("the I/O profile of the workspace");
  }
  if (!s.ok()) {
    RecordFailure(j, s.message());
  } else if (j.first) {
    double ready_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char times[96];
    std::snprintf(times, sizeof times, ": mounted after %.2f s, staged in after %.2f s", mounted_s, ready_s);
    std::ofstream(j.state + "/up.log") << "bb: burst buffer up on " << j.nodes.size() << " nodes in "
                                       << ModeSummary(j.state + "/mode.yaml", req->mode, j.state + "/evidence") << times
                                       << "\n";
  }
  return Status::Ok();
}

int BurstTaskEnv(const BurstOptions& o) {
  const char* id = std::getenv("SLURM_JOB_ID");
  if (id == nullptr) return 0;
  const std::string state = o.state_dir + "/job." + id;
  if (!Exists(state)) return 0;
  // The nodes that failed on their own; those that gave up because of them only when none did.
  std::vector<std::string> own, gave_up;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(state, ec)) {
    std::string name = e.path().filename();
    if (name.rfind("fail.", 0) != 0) continue;
    std::string why = LastLine(e.path());
    (why.rfind("gave up: ", 0) == 0 ? gave_up : own).push_back(name.substr(5) + ": " + why);
  }
  for (const auto& f : own.empty() ? gave_up : own) {
    std::printf("print bb: the burst buffer of job %s failed on %s\n", id, f.c_str());
  }
  if (!own.empty() || !gave_up.empty()) return 1;
  std::ifstream env(state + "/env");
  for (std::string line; std::getline(env, line);) {
    if (!line.empty()) std::printf("export %s\n", line.c_str());
  }
  return 0;
}

Status BurstAppend(const std::string& file, const std::string& text) {
  int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Status(errno, "cannot open " + file);
  std::string line = text.empty() || text.back() == '\n' ? text : text + "\n";
  ssize_t n = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (n != static_cast<ssize_t>(line.size())) return Status(EIO, "short write to " + file);
  return Status::Ok();
}

int BurstUp(const BurstOptions& o) {
  auto j = LoadBurstJob(o);
  if (!j) {
    std::fprintf(stderr, "bbctl bb up: %s\n", j.error().message().c_str());
    return 1;
  }
  if (!Exists(j->state + "/env") && Failures(*j).empty()) OnEveryNode(o, *j, "prolog");
  auto failed = Failures(*j);
  if (!failed.empty() || !Exists(j->state + "/env")) {
    for (const auto& f : failed) std::fprintf(stderr, "bbctl bb up: the burst buffer failed on %s\n", f.c_str());
    if (failed.empty()) std::fprintf(stderr, "bbctl bb up: the burst buffer did not come up (no node said why)\n");
    BurstDown(o);
    return 1;
  }
  std::ifstream up_log(j->state + "/up.log");
  for (std::string line; std::getline(up_log, line);) std::fprintf(stderr, "%s\n", line.c_str());
  std::ifstream env(j->state + "/env");
  for (std::string line; std::getline(env, line);) {
    if (!line.empty()) std::printf("export %s\n", line.c_str());
  }
  return 0;
}

int BurstDown(const BurstOptions& o) {
  auto j = LoadBurstJob(o);
  if (!j) {
    std::fprintf(stderr, "bbctl bb down: %s\n", j.error().message().c_str());
    return 1;
  }
  if (!Exists(j->state)) return 0;
  int rc = OnEveryNode(o, *j, "epilog");
  return rc == 0 && !Exists(j->state) ? 0 : 1;
}

}  // namespace bb::ctl
