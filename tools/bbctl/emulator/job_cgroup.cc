#include "tools/bbctl/emulator/job_cgroup.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace bb::ctl {
namespace {

std::string CgroupRoot() {
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    if (std::filesystem::exists(std::string(root) + "/cgroup.procs") &&
        std::filesystem::exists(std::string(root) + "/cgroup.max.depth")) {
      return root;
    }
  }
  return "";
}

bool HasMarker(pid_t pid, const std::string& marker) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::string entry;
  while (std::getline(in, entry, '\0')) {
    if (entry == marker) return true;
  }
  return false;
}

}  // namespace

JobCgroup::JobCgroup(std::string job_id) : job_id_(std::move(job_id)) {}

JobCgroup::~JobCgroup() {
  KillAll();
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
}

Status JobCgroup::Create() {
  std::string root = CgroupRoot();
  if (root.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(root + "/bb-emu", ec);
  std::string path = root + "/bb-emu/job_" + job_id_;
  if (!std::filesystem::create_directory(path, ec) && !std::filesystem::exists(path)) return Status::Ok();
  path_ = path;
  return Status::Ok();
}

void JobCgroup::Join(pid_t pid) {
  if (path_.empty()) return;
  std::ofstream(path_ + "/cgroup.procs") << pid << "\n";
}

std::vector<pid_t> JobCgroup::Processes() const {
  std::vector<pid_t> pids;
  if (!path_.empty()) {
    std::ifstream in(path_ + "/cgroup.procs");
    for (pid_t p; in >> p;) pids.push_back(p);
  }
  std::error_code ec;
  const std::string marker = Marker();
  for (auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    if (pid != ::getpid() && HasMarker(pid, marker)) pids.push_back(pid);
  }
  return pids;
}

bool JobCgroup::KillAll() {
  for (int i = 0; i < 250; ++i) {
    if (!path_.empty()) std::ofstream(path_ + "/cgroup.kill") << "1\n";
    std::vector<pid_t> left = Processes();
    if (left.empty()) return true;
    for (pid_t p : left) ::kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Processes().empty();
}

}  // namespace bb::ctl
