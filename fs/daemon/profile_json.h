// One node's I/O profile of a workspace (fs/core/observe/profile.h) as JSON, the reply of the control
// command profile_stop. bbctl merges the nodes' replies into the profile document
// (tools/jobs/profile_doc.h). Per node:
//   {"node": N, "start_unix": S (wall clock, seconds),
//    "files": [{"file_id", "path", "opens", "reads", "writes", "bytes_read", "bytes_written",
//               "read_sizes": [10], "write_sizes": [10], "seq_reads", "consec_reads", "seq_writes",
//               "consec_writes", "seeks", "stats", "fsyncs", "truncates", "renames", "unlinks",
//               "append_writes", "max_offset", "first_unix", "last_unix",
//               "created", "opened", "written", "read", "stat" (booleans: on this node),
//               "writers": [PIDS], "readers": [PIDS]}, ...],
//    "dirs": [{"path", "creates", "unlinks", "lookups", "readdirs",
//              "created", "made_entries", "looked_up", "listed"}, ...],
//    "timeline": [{"meta_ops", "data_ops", "bytes_read", "bytes_written"}, ...]  (1-s buckets)}
// A file's or directory's counters that are 0, flags that are false and lists that are empty (or
// all 0) are left out: most of a metadata-heavy run's counters are 0, and a node's reply names
// every file it touched (bbctl reads a missing key as 0, false or empty).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "fs/core/observe/profile.h"

namespace bb::fs {

nlohmann::json ProfileJson(const ProfileSnapshot& p);

}  // namespace bb::fs
