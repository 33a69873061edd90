#include "tools/bbctl/proc.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace bb::ctl {

Result<pid_t> Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env, bool quiet,
                    const std::string& stdout_to) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (!env.count(key)) env_storage.push_back(kv);
  }
  for (const auto& [k, v] : env) env_storage.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  if (!stdout_to.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, stdout_to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status(rc, "cannot run " + argv[0]);
  return pid;
}

Result<std::string> Capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status(errno, "pipe");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return Status(rc, "cannot run " + argv[0]);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = Wait(pid);
  if (status != 0) {
    std::string line;
    for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
    return Status(EIO, "'" + line + "' failed (exit " + std::to_string(status) + ")" + (out.empty() ? "" : ": " + out));
  }
  return out;
}

Status RunLogged(const std::vector<std::string>& argv, const std::string& what) {
  std::vector<std::string> sh = {"sh", "-c", "exec \"$0\" \"$@\" 2>&1"};
  sh.insert(sh.end(), argv.begin(), argv.end());
  auto out = Capture(sh);
  if (out) return Status::Ok();
  std::string msg = out.error().message();
  return Status(out.error().code(),
                what + ": " + msg.substr(msg.find(')') == std::string::npos ? 0 : msg.find(')') + 1));
}

namespace {

constexpr size_t kMaxCaptured = 1 << 20;

// Reads what is ready on `fd` into `into` (up to kMaxCaptured). False at end of file or error.
bool Drain(int fd, std::string* into) {
  char buf[4096];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  into->append(
      buf, static_cast<size_t>(std::min(static_cast<size_t>(n), kMaxCaptured - std::min(kMaxCaptured, into->size()))));
  return true;
}

// Collects the child's two pipes until both close, signalling it at `deadline` (SIGTERM) and
// 2 s later (SIGKILL). Descendants that keep a pipe open after the child is killed are not
// waited for.
void Collect(pid_t pid, int out_fd, int err_fd, std::chrono::steady_clock::time_point deadline, Ran* r) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open = 2, sent = 0;
  while (open > 0) {
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline + std::chrono::seconds(2 * sent)) {
      if (sent == 2) break;  // killed; what still holds the pipes is not the selector
      ::kill(pid, sent == 0 ? SIGTERM : SIGKILL);
      r->timed_out = true;
      ++sent;
      continue;
    }
    int wait_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline + std::chrono::seconds(2 * sent) - now).count());
    if (::poll(fds, 2, std::max(1, wait_ms)) < 0 && errno != EINTR) break;
    for (pollfd& p : fds) {
      if (p.fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (!Drain(p.fd, p.fd == out_fd ? &r->out : &r->err)) {
        p.fd = -1;
        --open;
      }
    }
  }
}

}  // namespace

Result<Ran> RunWithDeadline(const std::vector<std::string>& argv, std::chrono::milliseconds deadline) {
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return Status(errno, "pipe");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return Status(errno, "pipe");
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  Ran r;
  if (rc == 0) Collect(pid, out[0], err[0], std::chrono::steady_clock::now() + deadline, &r);
  ::close(out[0]);
  ::close(err[0]);
  if (rc != 0) return Status(rc, "cannot run " + argv[0] + ": " + std::strerror(rc));
  if (r.timed_out) ::kill(pid, SIGKILL);  // it closed its pipes but may not have ended
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) r.exit_status = WEXITSTATUS(st);
  if (WIFSIGNALED(st)) r.signal = WTERMSIG(st);
  return r;
}

int TryWait(pid_t pid) {
  int st = 0;
  pid_t r = ::waitpid(pid, &st, WNOHANG);
  if (r == 0) return -2;
  if (r < 0) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int Wait(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int Run(const std::vector<std::string>& argv, bool quiet, const std::map<std::string, std::string>& env) {
  auto pid = Spawn(argv, env, quiet);
  if (!pid) return -1;
  return Wait(*pid);
}

Status RunOk(const std::vector<std::string>& argv, bool quiet) {
  int rc = Run(argv, quiet);
  if (rc == 0) return Status::Ok();
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
  return Status(EIO, "'" + line + "' failed (exit " + std::to_string(rc) + ")");
}

bool Alive(pid_t pid) {
  // Another user's process answers EPERM: it exists all the same.
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM)) return false;
  // A process that exited but was not reaped (its parent gone, and an init that does not reap
  // orphans, as in some containers) still takes signals: it is dead all the same. One whose
  // main thread returned while others still finish (a daemon closing its store) is alive until
  // the last: the kernel shows the leader as a zombie meanwhile.
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream stat(task.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    size_t end = line.rfind(')');
    if (end == std::string::npos || end + 2 >= line.size() || (line[end + 2] != 'Z' && line[end + 2] != 'X')) {
      return true;
    }
  }
  return false;
}

bool Terminate(pid_t pid, int seconds) {
  if (!Alive(pid)) return true;
  ::kill(pid, SIGTERM);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (Alive(pid) && std::chrono::steady_clock::now() < until) {
    ::waitpid(pid, nullptr, WNOHANG);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (Alive(pid)) {
    ::kill(pid, SIGKILL);
    for (int i = 0; i < 250 && Alive(pid); ++i) {
      ::waitpid(pid, nullptr, WNOHANG);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return !Alive(pid);
}

pid_t DaemonPid(const std::string& root) {
  std::ifstream in(root + "/bbd.lock");
  pid_t pid = -1;
  if (in >> pid) return pid;
  // A root another user owns (0700) hides its lock file: the daemon serving it is found among
  // the running processes instead.
  return DaemonPidByRoot(root);
}

pid_t DaemonPidByRoot(const std::string& root) {
  std::error_code ec;
  std::string want = std::filesystem::weakly_canonical(root, ec).string();
  for (const auto& [pid, served] : RunningDaemons()) {
    if (served == want) return pid;
  }
  return -1;
}

std::vector<std::pair<pid_t, std::string>> RunningDaemons() {
  std::vector<std::pair<pid_t, std::string>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmdline((std::istreambuf_iterator<char>(in)), {});
    std::vector<std::string> argv;
    for (size_t at = 0; at < cmdline.size();) {
      size_t end = cmdline.find('\0', at);
      if (end == std::string::npos) end = cmdline.size();
      argv.push_back(cmdline.substr(at, end - at));
      at = end + 1;
    }
    if (argv.empty() || std::filesystem::path(argv[0]).filename() != "bbd") continue;
    for (size_t i = 1; i < argv.size(); ++i) {
      std::string root;
      if (argv[i] == "--root" && i + 1 < argv.size()) root = argv[i + 1];
      if (argv[i].rfind("--root=", 0) == 0) root = argv[i].substr(7);
      if (root.empty()) continue;
      pid_t pid = static_cast<pid_t>(std::stol(name));
      if (Alive(pid)) out.emplace_back(pid, std::filesystem::weakly_canonical(root, ec).string());
      break;
    }
  }
  return out;
}

std::string SelfDir() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<size_t>(n));
  return p.substr(0, p.rfind('/'));
}

void AppendBbdArgs(std::vector<std::string>* argv, const std::vector<std::string>& user_args) {
  if (std::find(user_args.begin(), user_args.end(), "--rpc-poll-spin") == user_args.end()) {
    argv->insert(argv->end(), {"--rpc-poll-spin", "0"});
  }
  argv->insert(argv->end(), user_args.begin(), user_args.end());
}

}  // namespace bb::ctl
