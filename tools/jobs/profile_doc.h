// The I/O profile document of one probe run: every node's profile of the job's workspace
// (fs/daemon/profile_json.h) merged into one, the job's geometry and times added. It is the
// contract between the file system and the mode selector (modeselect/profile/ reads it).
//
// Format, version 1 (JSON):
//   {"version": 1,
//    "job": {"name", "mode", "nodes", "tasks", "tasks_per_node", "wall_seconds", "exit_status", "script"},
//    "totals": {"files", "dirs", "meta_ops", "data_ops", and the sums of the files' counters
//               (opens, reads, writes, bytes_read, bytes_written, stats, fsyncs, ...) and of the
//               dirs' (creates, unlinks, lookups, readdirs)},
//    "timeline": {"bucket_seconds": 1, "start_unix": S,
//                 "buckets": [{"t": SECONDS_FROM_START, "meta_ops", "data_ops", "bytes_read",
//                              "bytes_written"}, ...]},          (seconds without operations left out)
//    "files": [{"path": "/dir/name" (inside the workspace), "opens", "reads", "writes",
//               "bytes_read", "bytes_written",
//               "read_sizes": [10], "write_sizes": [10],          (Darshan's bins: 0-100, 100-1K,
//                  1K-10K, 10K-100K, 100K-1M, 1M-4M, 4M-10M, 10M-100M, 100M-1G, 1G+ bytes)
//               "seq_reads", "consec_reads", "seq_writes", "consec_writes",
//                  (per process: consecutive = at the end of its previous access; sequential =
//                   at or past it, consecutive included, as Darshan counts them; a process's
//                   first access counts as consecutive when it is at offset 0)
//               "seeks" (accesses not consecutive to the process's previous one: the lseeks they
//                  imply), "stats", "fsyncs", "truncates", "renames", "unlinks", "append_writes",
//               "max_offset" (one past the highest byte accessed), "first_unix", "last_unix",
//               "created_on": NODE or null, "opened_on": [NODES], "writer_nodes": [NODES],
//               "reader_nodes": [NODES], "stat_nodes": [NODES] (stat'ed or looked up there),
//               "writers": ["NODE:PID", ...], "readers": ["NODE:PID", ...]}, ...],
//    "dirs": [{"path", "creates", "unlinks", "lookups", "readdirs", "created_on": NODE or null,
//              "entry_nodes": [nodes that made entries in it], "lookup_nodes", "readdir_nodes"}, ...]}
// Node ids are the cluster's; a process is named by its node and pid; lists are sorted. The
// workspace's root is the dir "/" (created_on null: every node has it).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "fs/base/status.h"

namespace bb::jobs {

inline constexpr int kProfileDocVersion = 1;

// Merges the nodes' profiles (the "profile" objects of profile_stop) and `job` (the "job"
// object above) into the document. EPROTO naming what is wrong in a node's profile.
Result<nlohmann::json> MergeProfiles(const std::vector<nlohmann::json>& nodes, const nlohmann::json& job);

}  // namespace bb::jobs
