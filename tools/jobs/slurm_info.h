// The facts of a Slurm job that the burst buffer's root-run hooks act on, taken only from
// sources no user can shape.
//
// The job's id, owner and nodes come from the environment slurmd gives a Prolog, an Epilog and
// the job's own processes (SLURM_JOB_ID, SLURM_JOB_UID, SLURM_JOB_GID, SLURM_JOB_USER, and
// SLURM_JOB_NODELIST, which a Prolog and Epilog of Slurm 22.05 get as SLURM_NODELIST). The rest
// (the submit directory, the output file) comes from `squeue --json --jobs ID` (Slurm 22.05's
// `scontrol` has no JSON output), read with a JSON parser and checked to be the same job of the
// same owner. User-chosen fields (the job's name, comment, work dir, output path, account) are then
// values inside a JSON string: no value can pose as another field, as it could in the blank-split
// text of `scontrol show job -o` (a job named "x UserId=root(0)" read as root's).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb::jobs {

struct SlurmJob {
  std::string id;
  std::string node_list;  // SLURM_JOB_NODELIST (a hostlist expression)
  uint32_t uid = 0, gid = 0;
  std::string user;
  std::string work_dir;  // the submit directory
  std::string std_out;   // the job's output file ("" when unknown)
};

// Reads an environment variable: null when unset.
using Getenv = std::function<const char*(const char*)>;

// The job's id, owner and nodes from the environment. EINVAL naming the variable that is
// missing or malformed. SLURM_JOB_GID may be missing (Slurm gives it to a Prolog and Epilog, not
// to every job process): then gid stays unset and AddJobJson takes it.
Result<SlurmJob> SlurmJobFromEnv(const Getenv& getenv, bool* have_gid);

// Adds the work dir, the output file (and the gid, when `need_gid`) from the output of
// `squeue --json --jobs ID`. EINVAL when the text is not such a document, holds no job of that
// id, names another owner than the environment did, or has no work dir. The output file's
// pattern is expanded as Slurm does (%j, %J, %u, %x, %N, %%); one with another pattern, or
// relative, is left out ("").
Status AddJobJson(std::string_view json, bool need_gid, SlurmJob* job);

// A node's address from the output of `sinfo --json` (its NodeAddr, else its name). EINVAL when
// the text is not such a document or holds no node of that name.
Result<std::string> NodeAddrFromJson(std::string_view json, const std::string& node);

// The first node of a hostlist expression ("node[3-5,7]" -> "node3"); "" when there is none.
std::string FirstHost(const std::string& hostlist);

}  // namespace bb::jobs
