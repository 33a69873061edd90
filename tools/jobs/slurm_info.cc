#include "tools/jobs/slurm_info.h"

#include <cerrno>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

namespace bb::jobs {
namespace {

using nlohmann::json;

// A decimal id of at most 9 digits (uids and gids below 10^9, as Slurm's), or nothing.
bool DecimalId(std::string_view text, uint32_t* out) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  *out = static_cast<uint32_t>(std::strtoul(std::string(text).c_str(), nullptr, 10));
  return true;
}

// A number field, as Slurm 22.05 writes it (a plain number) or later ones ({"set": true,
// "number": N}); nullopt when absent or of another kind.
std::optional<int64_t> Number(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_object() && it->contains("number") && (*it)["number"].is_number_integer()) {
    if (it->contains("set") && (*it)["set"].is_boolean() && !(*it)["set"].get<bool>()) return std::nullopt;
    return (*it)["number"].get<int64_t>();
  }
  return std::nullopt;
}

std::string Text(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// The items of `list` in a document of Slurm's shape {"...": [...], "errors": [...]}.
Result<json> Items(std::string_view text, const char* list, const std::string& what) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Status(EINVAL, what + ": not a JSON document");
  if (auto e = doc.find("errors"); e != doc.end() && e->is_array() && !e->empty()) {
    std::string first = (*e)[0].is_object() ? Text((*e)[0], "description") + " " + Text((*e)[0], "error") : "";
    return Status(EINVAL, what + ": Slurm answered with an error" + (first.empty() ? "" : ": " + first));
  }
  auto items = doc.find(list);
  if (items == doc.end() || !items->is_array()) return Status(EINVAL, what + std::string(": no '") + list + "' in it");
  return *items;
}

// Slurm's filename pattern (sbatch -o) for one job: %j and %J the job id, %u the user, %x the
// job name, %N the first node, %% a percent sign. Anything else: nullopt (not guessed).
std::optional<std::string> ExpandOutputPattern(const std::string& pattern, const SlurmJob& job,
                                               const std::string& name) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    if (++i == pattern.size()) return std::nullopt;
    switch (pattern[i]) {
      case 'j':
      case 'J':
        out += job.id;
        break;
      case 'u':
        out += job.user;
        break;
      case 'x':
        out += name;
        break;
      case 'N':
        out += FirstHost(job.node_list);
        break;
      case '%':
        out += '%';
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace

Result<SlurmJob> SlurmJobFromEnv(const Getenv& getenv, bool* have_gid) {
  auto need = [&](const char* name) -> Result<std::string> {
    const char* v = getenv(name);
    if (v == nullptr || *v == '\0') return Status(EINVAL, std::string("not in a Slurm job: no ") + name);
    return std::string(v);
  };
  SlurmJob j;
  BB_ASSIGN_OR_RETURN(j.id, need("SLURM_JOB_ID"));
  uint32_t number = 0;
  if (!DecimalId(j.id, &number)) return Status(EINVAL, "SLURM_JOB_ID=" + j.id + " is not a job id");
  BB_ASSIGN_OR_RETURN(std::string uid, need("SLURM_JOB_UID"));
  if (!DecimalId(uid, &j.uid)) return Status(EINVAL, "SLURM_JOB_UID=" + uid + " is not a uid");
  BB_ASSIGN_OR_RETURN(j.user, need("SLURM_JOB_USER"));
  const char* nodes = getenv("SLURM_JOB_NODELIST");
  if (nodes == nullptr || *nodes == '\0') nodes = getenv("SLURM_NODELIST");
  if (nodes == nullptr || *nodes == '\0') return Status(EINVAL, "not in a Slurm job: no SLURM_JOB_NODELIST");
  j.node_list = nodes;
  const char* gid = getenv("SLURM_JOB_GID");
  *have_gid = gid != nullptr && *gid != '\0';
  if (*have_gid && !DecimalId(gid, &j.gid))
    return Status(EINVAL, std::string("SLURM_JOB_GID=") + gid + " is not a gid");
  return j;
}

Status AddJobJson(std::string_view text, bool need_gid, SlurmJob* job) {
  const std::string what = "squeue --json --jobs " + job->id;
  BB_ASSIGN_OR_RETURN(json items, Items(text, "jobs", what));
  const json* item = nullptr;
  for (const json& j : items) {
    auto id = j.is_object() ? Number(j, "job_id") : std::nullopt;
    if (id && std::to_string(*id) == job->id) item = &j;
  }
  if (item == nullptr) return Status(EINVAL, what + ": no job " + job->id + " in it");
  auto uid = Number(*item, "user_id");
  if (!uid || *uid != job->uid) {
    return Status(EINVAL, what + ": the job's owner is uid " + (uid ? std::to_string(*uid) : "(none)") +
                              ", not SLURM_JOB_UID " + std::to_string(job->uid));
  }
  if (need_gid) {
    auto gid = Number(*item, "group_id");
    if (!gid || *gid < 0 || *gid > 999'999'999) return Status(EINVAL, what + ": no group_id");
    job->gid = static_cast<uint32_t>(*gid);
  }
  job->work_dir = Text(*item, "current_working_directory");
  if (job->work_dir.empty() || job->work_dir[0] != '/') {
    return Status(EINVAL, what + ": no current_working_directory (an absolute path)");
  }
  auto out = ExpandOutputPattern(Text(*item, "standard_output"), *job, Text(*item, "name"));
  job->std_out = out && !out->empty() && (*out)[0] == '/' ? *out : "";
  return Status::Ok();
}

Result<std::string> NodeAddrFromJson(std::string_view text, const std::string& node) {
  const std::string what = "sinfo --json";
  BB_ASSIGN_OR_RETURN(json items, Items(text, "nodes", what));
  for (const json& n : items) {
    if (!n.is_object() || Text(n, "name") != node) continue;
    std::string addr = Text(n, "address");
    return addr.empty() ? node : addr;
  }
  return Status(EINVAL, what + ": no node " + node + " in it");
}

std::string FirstHost(const std::string& hostlist) {
  size_t comma = hostlist.find(',');
  size_t open = hostlist.find('[');
  if (open == std::string::npos || (comma != std::string::npos && comma < open)) return hostlist.substr(0, comma);
  size_t end = hostlist.find_first_of("-,]", open + 1);
  if (end == std::string::npos) return "";
  return hostlist.substr(0, open) + hostlist.substr(open + 1, end - open - 1);
}

}  // namespace bb::jobs
