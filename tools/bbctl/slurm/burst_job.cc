#include "tools/bbctl/slurm/burst_job.h"

#include <fcntl.h>
#include <netdb.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/bbctl/proc.h"
#include "tools/jobs/stage_limit.h"

namespace bb::ctl {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string Replace(std::string s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size())) {
    s.replace(at, what.size(), with);
  }
  return s;
}

}  // namespace

bool Exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

std::string Beside(const std::string& program) {
  std::string path = SelfDir() + "/" + program;
  return Exists(path) ? path : program;
}

Result<std::string> UserScratch(const BurstJob& j) {
  const std::string dir = j.root + ".user";
  struct stat st;
  if (::lstat(dir.c_str(), &st) == 0 && (!S_ISDIR(st.st_mode) || st.st_uid != j.slurm.uid)) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status(errno, "cannot create " + dir + ": " + std::strerror(errno));
  }
  if (::geteuid() == 0 && ::chown(dir.c_str(), j.slurm.uid, j.slurm.gid) != 0) {
    return Status(errno, "cannot give " + dir + " to uid " + std::to_string(j.slurm.uid));
  }
  return dir;
}

namespace {

// `text` into `path` (truncated, never through a link) with `mode`; given to `owner` when set and
// this is root.
Status WriteNoFollow(const std::string& path, const std::string& text, mode_t mode, const BurstJob* owner) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return Status(errno, "cannot write " + path + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (ok && owner != nullptr && ::geteuid() == 0) ok = ::fchown(fd, owner->slurm.uid, owner->slurm.gid) == 0;
  int err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  return ok ? Status::Ok() : Status(err, "cannot write " + path + ": " + std::strerror(err));
}

}  // namespace

Status WriteUsers(const BurstJob& j, const std::string& path, const std::string& text, mode_t mode) {
  return WriteNoFollow(path, text, mode, &j);
}

Status WritePrivate(const std::string& path, const std::string& text) {
  return WriteNoFollow(path, text, 0600, nullptr);
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

std::string SlurmHookContext() {
  std::string c = Env("SLURM_SCRIPT_CONTEXT");
  return c == "prolog_slurmd" || c == "epilog_slurmd" ? c : "";
}

double StageLimit(const BurstOptions& o) {
  if (SlurmHookContext().empty()) return 0;
  if (o.stage_limit != "auto") return std::strtod(o.stage_limit.c_str(), nullptr);  // checked by the CLI
  auto config = Capture({"scontrol", "show", "config"});
  return config ? jobs::PrologEpilogTimeoutFrom(*config) : 0;
}

Result<uint64_t> BytesUnder(const BurstJob& j, const std::vector<std::string>& paths) {
  if (paths.empty()) return uint64_t{0};
  std::vector<std::string> argv = {"du", "-s", "-c", "-b", "-D", "--"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  BB_ASSIGN_OR_RETURN(std::string out, Capture(AsUser(j, argv)));
  // The last line: "<bytes>\ttotal".
  size_t at = out.rfind('\n', out.size() >= 2 ? out.size() - 2 : 0);
  return static_cast<uint64_t>(std::strtoull(out.c_str() + (at == std::string::npos ? 0 : at + 1), nullptr, 10));
}

Result<BurstJob> LoadBurstJob(const BurstOptions& o) {
  BurstJob j;
  bool have_gid = false;
  BB_ASSIGN_OR_RETURN(j.slurm, jobs::SlurmJobFromEnv(std::getenv, &have_gid));
  j.node = Env("SLURMD_NODENAME");
  if (j.node.empty()) return Status(EINVAL, "not in a Slurm job: no SLURMD_NODENAME");
  const std::string& id = j.slurm.id;
  BB_ASSIGN_OR_RETURN(std::string doc, Capture({"squeue", "--json", "--jobs", id}));
  BB_RETURN_IF_ERROR(jobs::AddJobJson(doc, !have_gid, &j.slurm));
  BB_ASSIGN_OR_RETURN(std::string names, Capture({"scontrol", "show", "hostnames", j.slurm.node_list}));
  std::istringstream in(names);
  for (std::string n; in >> n;) j.nodes.push_back(n);
  if (j.nodes.empty())
    return Status(EINVAL, "job " + id + " has no nodes (SLURM_JOB_NODELIST=" + j.slurm.node_list + ")");
  j.first = j.nodes.front() == j.node;
  j.state = o.state_dir + "/job." + id;
  j.root = Replace(o.local_dir, "%n", j.node) + "/bb." + id;
  j.mount = o.mount_dir + "/bb." + id;
  j.workspace = j.mount + "/job" + id;
  return j;
}

Result<jobs::BbRequest> LoadRequest(const BurstOptions& o, const BurstJob& j, std::string* script_text) {
  std::string text;
  std::string source = "job " + j.slurm.id + "'s script";
  if (!o.script_text.empty()) {
    text = o.script_text;
  } else if (!o.script.empty()) {
    if (!Exists(o.script)) return Status(ENOENT, "no job script " + o.script);
    text = ReadAll(o.script);
    source = o.script;
  } else if (Exists(j.state + "/script")) {
    text = ReadAll(j.state + "/script");
  } else {
    BB_ASSIGN_OR_RETURN(text, Capture({"scontrol", "write", "batch_script", j.slurm.id, "-"}));
  }
  std::string home;
  if (const passwd* pw = ::getpwuid(j.slurm.uid)) home = pw->pw_dir;
  std::map<std::string, std::string> vars = {
      {"SLURM_JOB_ID", j.slurm.id}, {"SLURM_SUBMIT_DIR", j.slurm.work_dir}, {"USER", j.slurm.user}};
  if (!home.empty()) vars["HOME"] = home;
  if (script_text) *script_text = text;
  return jobs::ParseBbDirectives(text, source, vars);
}

std::vector<std::string> AsUser(const BurstJob& j, std::vector<std::string> argv) {
  // The uid is SLURM_JOB_UID, which the job's user cannot choose: root only for root's jobs. The
  // user's supplementary groups come along (a group-shared input folder stages in as it reads).
  if (::geteuid() != 0 || j.slurm.uid == 0) return argv;
  std::vector<std::string> out = {"setpriv", "--reuid=" + std::to_string(j.slurm.uid),
                                  "--regid=" + std::to_string(j.slurm.gid), "--init-groups", "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

void RecordFailure(const BurstJob& j, const std::string& why) {
  std::ofstream(j.state + "/fail." + j.node) << why << "\n";
  std::fprintf(stderr, "bbctl bb: %s: %s\n", j.node.c_str(), why.c_str());
}

std::vector<std::string> Failures(const BurstJob& j) {
  std::vector<std::string> out;
  for (const std::string& n : j.nodes) {
    std::string path = j.state + "/fail." + n;
    if (!Exists(path)) continue;
    std::string why = ReadAll(path);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    out.push_back(n + ": " + why);
  }
  return out;
}

Result<std::string> NodeAddress(const std::string& node) {
  BB_ASSIGN_OR_RETURN(std::string doc, Capture({"sinfo", "--json", "--nodes", node}));
  BB_ASSIGN_OR_RETURN(std::string addr, jobs::NodeAddrFromJson(doc, node));
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(addr.c_str(), nullptr, &hints, &res); rc != 0) {
    return Status(EHOSTUNREACH, "node " + node + "'s address " + addr + ": " + ::gai_strerror(rc));
  }
  char host[NI_MAXHOST];
  int rc = ::getnameinfo(res->ai_addr, res->ai_addrlen, host, sizeof host, nullptr, 0, NI_NUMERICHOST);
  ::freeaddrinfo(res);
  if (rc != 0) return Status(EHOSTUNREACH, "node " + node + "'s address " + addr + ": " + ::gai_strerror(rc));
  return std::string(host);
}

}  // namespace bb::ctl
