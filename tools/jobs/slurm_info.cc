#include "tools/jobs/slurm_info.h"

#include <cstdlib>
#include <sstream>

namespace bb::jobs {
namespace {

// "name(1000)" -> 1000; false when there is no number in parentheses.
bool IdIn(const std::string& v, uint32_t* id, std::string* name) {
  size_t open = v.find('('), close = v.find(')', open);
  if (open == std::string::npos || close == std::string::npos || close == open + 1) return false;
  std::string digits = v.substr(open + 1, close - open - 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return false;
  *id = static_cast<uint32_t>(std::strtoul(digits.c_str(), nullptr, 10));
  if (name) *name = v.substr(0, open);
  return true;
}

}  // namespace

std::map<std::string, std::string> ParseScontrolLine(const std::string& line) {
  std::map<std::string, std::string> out;
  std::istringstream in(line);
  for (std::string field; in >> field;) {
    size_t eq = field.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    out.emplace(field.substr(0, eq), field.substr(eq + 1));
  }
  return out;
}

Result<SlurmJob> ParseSlurmJob(const std::string& scontrol_line) {
  auto f = ParseScontrolLine(scontrol_line);
  auto need = [&](const char* key) -> Result<std::string> {
    auto it = f.find(key);
    if (it == f.end() || it->second.empty() || it->second == "(null)") {
      return Status(EINVAL, std::string("scontrol show job: no ") + key + " field");
    }
    return it->second;
  };
  SlurmJob j;
  BB_ASSIGN_OR_RETURN(j.id, need("JobId"));
  BB_ASSIGN_OR_RETURN(j.node_list, need("NodeList"));
  BB_ASSIGN_OR_RETURN(std::string nodes, need("NumNodes"));
  j.num_nodes = std::atoi(nodes.c_str());
  if (j.num_nodes < 1) return Status(EINVAL, "scontrol show job: NumNodes=" + nodes + " is not a node count");
  BB_ASSIGN_OR_RETURN(std::string user, need("UserId"));
  if (!IdIn(user, &j.uid, &j.user)) return Status(EINVAL, "scontrol show job: UserId=" + user + " has no uid");
  BB_ASSIGN_OR_RETURN(std::string group, need("GroupId"));
  if (!IdIn(group, &j.gid, nullptr)) return Status(EINVAL, "scontrol show job: GroupId=" + group + " has no gid");
  BB_ASSIGN_OR_RETURN(j.work_dir, need("WorkDir"));
  auto out = f.find("StdOut");
  if (out != f.end() && out->second != "(null)") j.std_out = out->second;
  return j;
}

}  // namespace bb::jobs
