// The #BB directives of a batch script: the burst buffer a job asks for, read as #SBATCH lines
// are (before the first command line). Next to DataWarp's:
//
//   #DW jobdw type=scratch access_mode=striped capacity=100GB   #BB mode=3
//   #DW stage_in source=/p/in destination=$DW_JOB_STRIPED/in type=directory
//                                      #BB stage_in source=/p/in destination=in type=directory
//   #DW stage_out source=$DW_JOB_STRIPED/out destination=/p/out type=directory
//                                      #BB stage_out source=out destination=/p/out type=directory
//
//   #BB mode=auto|1|2|3|4 [chunk_size=SIZE] [metadata_server_ratio=R]
//       [profile=PATH | darshan=PATH] [reasoner=rules|llm|auto]   (the last three with mode=auto)   (capacity= is
//       refused: nothing
//   would keep such a reservation; a full node answers ENOSPC)
//   #BB stage_in source=PATH destination=PATH [type=file|directory|list]
//   #BB stage_out source=PATH destination=PATH [type=file|directory|list]
//
// One `mode` line at most (none: no burst buffer, unless staging asks for one: mode auto).
// Inside the burst buffer a path is relative to the job's workspace (a leading
// $BB_WORKSPACE/ is dropped); outside it is absolute, or relative to the submit directory. Values
// may be quoted as in the shell; $SLURM_JOB_ID, $SLURM_SUBMIT_DIR, $HOME and $USER (also as
// ${NAME}) are replaced by the job's. type=list: `source` is a file of lines "SOURCE DESTINATION"
// (shell-quoted), each staged as a file or directory. An unknown key, a bad value or a second
// `mode` line is an error naming the file, the line and the key.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::jobs {

enum class StageType { kAuto, kFile, kDirectory, kList };

struct StageDirective {
  std::string source;
  std::string destination;
  StageType type = StageType::kAuto;  // kAuto: whatever the source is
  int line = 0;
};

struct BbRequest {
  bool wanted = false;      // any #BB line
  int mode = 0;             // 0 = auto (the mode selector decides), else 1..4
  uint64_t chunk_size = 0;  // 0 = the instance's
  std::optional<double> metadata_server_ratio;
  // mode=auto's evidence and reasoner (empty: the selector's defaults; the profile of the
  // script's last run, if any): a probe profile or darshan-parser text, as OutsidePath places it.
  std::string profile, darshan;
  std::string reasoner;  // rules, llm or auto
  std::vector<StageDirective> stage_in, stage_out;
};

// `vars`: the values of the variables a value may name (SLURM_JOB_ID, ...); naming another is
// an error. EINVAL "<source>:<line>: #BB <key>: <what>".
Result<BbRequest> ParseBbDirectives(const std::string& text, const std::string& source,
                                    const std::map<std::string, std::string>& vars);

// The mode file a request gives (mode 1..4), as bbctl job start reads it.
std::string ModeFileText(const BbRequest& r);

// Where a stage path lands: a workspace path relative to `workspace`, an outside path absolute
// (relative ones from `submit_dir`).
std::string InsidePath(const std::string& path, const std::string& workspace);
std::string OutsidePath(const std::string& path, const std::string& submit_dir);

// Whether a burst buffer path has a ".." component (it could leave the job's workspace).
bool LeavesWorkspace(const std::string& path);

// The pairs of a type=list file: one "SOURCE DESTINATION" per line (blank lines and # comments
// skipped). EINVAL naming `source` and the line.
Result<std::vector<std::pair<std::string, std::string>>> ParseStageList(const std::string& text,
                                                                        const std::string& source);

}  // namespace bb::jobs
