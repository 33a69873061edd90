// What `scontrol show job -o` and `scontrol show node -o` say, as the burst buffer's Slurm hooks
// need it (fields "Key=Value" separated by blanks; values never hold blanks except the last
// fields', which are not read).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "fs/base/status.h"

namespace bb::jobs {

// The fields of one `scontrol show ... -o` line. A field named twice keeps its first value.
std::map<std::string, std::string> ParseScontrolLine(const std::string& line);

struct SlurmJob {
  std::string id;
  std::string node_list;  // NodeList (a hostlist expression)
  int num_nodes = 0;
  uint32_t uid = 0, gid = 0;
  std::string user;
  std::string work_dir;  // the submit directory
  std::string std_out;   // the job's output file ("" when unknown)
};

// EINVAL naming the missing or malformed field.
Result<SlurmJob> ParseSlurmJob(const std::string& scontrol_line);

}  // namespace bb::jobs
