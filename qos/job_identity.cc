#include "qos/job_identity.h"

#include <fstream>
#include <iterator>
#include <sstream>

namespace bb::qos {

JobResolver::JobResolver(const Clock* clock, bool trust_environment, std::string proc, int64_t recheck_ns,
                         size_t max_entries)
    : clock_(clock),
      trust_environment_(trust_environment),
      proc_(std::move(proc)),
      recheck_ns_(recheck_ns),
      max_entries_(max_entries) {}

// Field 22 of /proc/PID/stat (after the parenthesized command, which may hold spaces).
uint64_t JobResolver::StartTime(pid_t pid) const {
  std::ifstream in(proc_ + "/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

namespace {

// The Slurm job a cgroup path belongs to: the digits of a "job_<id>" component (Slurm's cgroup
// plugins, v1 and v2, and the emulated cluster name their job cgroups so), or "".
std::string SlurmJobOfCgroup(std::string_view path) {
  for (size_t at = path.find("job_"); at != std::string_view::npos; at = path.find("job_", at + 1)) {
    if (at > 0 && path[at - 1] != '/') continue;
    size_t end = at + 4;
    while (end < path.size() && path[end] >= '0' && path[end] <= '9') ++end;
    if (end > at + 4 && (end == path.size() || path[end] == '/')) return std::string(path.substr(at + 4, end - at - 4));
  }
  return "";
}

}  // namespace

std::string JobResolver::FromEnvironment(const std::string& base) const {
  std::ifstream in(base + "/environ");
  std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string slurm;
  size_t pos = 0;
  while (pos < env.size()) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    std::string_view var(env.data() + pos, end - pos);
    if (var.rfind("BB_JOB_ID=", 0) == 0 && var.size() > 10) return std::string(var.substr(10));
    if (var.rfind("SLURM_JOB_ID=", 0) == 0 && var.size() > 13) slurm = std::string(var.substr(13));
    pos = end + 1;
  }
  return slurm;
}

std::string JobResolver::Resolve(pid_t pid, uid_t uid) const {
  std::string base = proc_ + "/" + std::to_string(pid);
  if (trust_environment_) {
    std::string job = FromEnvironment(base);
    if (!job.empty()) return job;
  }
  std::ifstream in(base + "/cgroup");
  std::string line, last;
  while (std::getline(in, line)) {
    size_t colon = line.find(':', line.find(':') + 1);
    if (colon == std::string::npos) continue;
    std::string path = line.substr(colon + 1);
    std::string job = SlurmJobOfCgroup(path);
    if (!job.empty()) return job;  // the job the process's cgroup is Slurm's for
    last = path;
  }
  if (!last.empty() && last != "/") return "cgroup:" + last;
  return "uid:" + std::to_string(uid);
}

std::string JobResolver::JobOf(pid_t pid, uid_t uid) {
  int64_t now = clock_->MonotonicNs();
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(pid);
    if (it != cache_.end() && now - it->second.checked_ns < recheck_ns_) return it->second.job;
  }
  uint64_t start = StartTime(pid);
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(pid);
    if (it != cache_.end() && it->second.start_time == start) {
      it->second.checked_ns = now;
      return it->second.job;
    }
  }
  std::string job = Resolve(pid, uid);  // reads procfs: not under the lock
  std::lock_guard lock(mu_);
  if (cache_.size() >= max_entries_) cache_.clear();
  cache_[pid] = Entry{job, start, now};
  return job;
}

}  // namespace bb::qos
