#include "test/mount_fixture.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fs/base/mounts.h"

namespace bb::test {
namespace {

// The wait status of `pid`, or -1 when it has not exited within `limit`.
int WaitExit(pid_t pid, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    int st = 0;
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) return st;
    if (r < 0 && errno == ECHILD) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

void DetachMount(const std::string& path) {
  if (MountedBb::IsMounted(path)) ::umount2(path.c_str(), MNT_DETACH);
}

}  // namespace

std::string MountedBb::BbdPath() {
  const char* env = std::getenv("BB_BBD");
  return env ? env : BBD_PATH;
}

bool MountedBb::IsMounted(const std::string& path) { return bb::IsMountPoint(path); }

MountedBb::MountedBb(std::vector<std::string> extra_args, std::string root_override) : args_(std::move(extra_args)) {
  char tmpl[] = "/tmp/bb-mt-XXXXXX";
  tmp_ = ::mkdtemp(tmpl);
  mnt_ = tmp_ + "/mnt";
  std::filesystem::create_directories(mnt_);
  if (root_override.empty()) {
    root_ = tmp_ + "/root";
  } else {
    root_ = root_override;
    own_root_ = false;
  }
  Start();
}

MountedBb::~MountedBb() { Cleanup(); }

bool MountedBb::Start() {
  error_.clear();
  std::vector<std::string> argv = {BbdPath(), "--root", root_, "--mount", mnt_, "--foreground"};
  argv.insert(argv.end(), args_.begin(), args_.end());
  std::string log = tmp_ + "/bbd.stderr";
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) ::dup2(fd, 2);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < until) {
    if (IsMounted(mnt_)) return true;
    int st;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  error_ = "bbd did not mount: " + ss.str();
  if (pid_ > 0) Stop();
  return false;
}

void MountedBb::Stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    if (WaitExit(pid_, std::chrono::seconds(10)) < 0) {
      ::kill(pid_, SIGKILL);
      WaitExit(pid_, std::chrono::seconds(5));
    }
    pid_ = -1;
  }
  DetachMount(mnt_);
}

void MountedBb::Kill9() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    WaitExit(pid_, std::chrono::seconds(5));
    pid_ = -1;
  }
  DetachMount(mnt_);
}

void MountedBb::Cleanup() {
  Stop();
  std::error_code ec;
  if (!own_root_) std::filesystem::remove(tmp_ + "/root", ec);
  std::filesystem::remove_all(tmp_, ec);
}

int Sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int RunBbd(const std::vector<std::string>& args, std::string* output) {
  char tmpl[] = "/tmp/bb-out-XXXXXX";
  int fd = ::mkstemp(tmpl);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<std::string> argv = {MountedBb::BbdPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  int st = WaitExit(pid, std::chrono::seconds(20));
  if (st < 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
  }
  std::ifstream in(tmpl);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  ::close(fd);
  ::unlink(tmpl);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace bb::test
