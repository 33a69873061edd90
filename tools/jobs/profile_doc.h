// The I/O profile document of one probe run: every node's profile of the job's workspace
// (fs/daemon/profile_json.h) merged into one, the job's geometry and times added. It is the
// contract between the file system and the mode selector (modeselect/profile/ reads it).
//
// A node sees only its own side of a file; which nodes made, wrote and read it is known once
// the nodes' profiles are merged here, so this is where files are put in classes. A run of up to
// 1,024 files lists every one; a larger run lists its top files (64 by bytes, 64 by operations)
// and an example of each class, and every file counts in its class: a 100,000-file run gives a
// document of a few hundred KiB that decides as fast as a small one, with the same signals as the
// whole list (modeselect/profile/summary.h).
//
// Format, version 2 (JSON; version 1 had every file, no "remote_bytes_read", no classes and no
// "processes", "writer_processes", "nodes" in the totals — the selector reads both):
//   {"version": 2,
//    "job": {"name", "mode", "nodes", "tasks", "tasks_per_node", "wall_seconds", "exit_status", "script"},
//    "totals": {"files", "dirs", "meta_ops", "data_ops", "processes" (distinct processes that read
//               or wrote a file), "writer_processes", "nodes": [every node any list names], and the
//               sums of the files' counters (opens, reads, writes, bytes_read, bytes_written, stats,
//               fsyncs, ...; when a file is listed) and of the dirs' (creates, unlinks, lookups,
//               readdirs; when a directory is listed)},
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
//               "writers": ["NODE:PID", ...], "readers": ["NODE:PID", ...],
//               "remote_bytes_read" (read on nodes that wrote none of it; 0 when no node wrote it)}, ...],
//    "dirs": [{"path", "creates", "unlinks", "lookups", "readdirs", "created_on": NODE or null,
//              "entry_nodes": [nodes that made entries in it], "lookup_nodes", "readdir_nodes"}, ...],
//    "file_classes": [{"pattern": {"made": "before"|"writer"|"other"|"mixed", "writer_nodes",
//                                  "reader_nodes", "remote_reader_nodes", "nodes", "writers",
//                                  "readers", "size_class": BIN or null, "access": "none"|
//                                  "sequential"|"random"|"append"|"mixed", "coarse": BOOL},
//                      "files", "written", "read", "writers", "writer_nodes", "cross_node",
//                      "multi_node", "cross_rank", "node_shared_bytes", "remote_bytes_read",
//                      "cross_rank_bytes_read", "shared_bytes_read",
//                      "counts": {the files' counters as above, summed; max_offset the largest},
//                      "example": PATH}, ...],            (every file in one class: summary.h)
//    "dir_classes": [{"pattern": {"made": "before"|"maker"|"other"|"mixed", "entry_nodes",
//                                 "listed_elsewhere": BOOL, "creates_class": K or null, "coarse"},
//                     "dirs", "creates", "unlinks", "lookups", "readdirs", "file_opens",
//                     "file_stats", "cross_node", "common_parent", "contended", "contended_ops",
//                     "max_entry_nodes", "example": PATH}, ...]}
// Node ids are the cluster's; a process is named by its node and pid; lists are sorted. The
// workspace's root is the dir "/" (created_on null: every node has it).
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "fs/base/status.h"
#include "modeselect/profile/summary.h"

namespace bb::jobs {

// Merges the nodes' profiles (the "profile" objects of profile_stop) and `job` (the "job"
// object above) into the document; `keep` says which files and directories it lists. EPROTO
// naming what is wrong in a node's profile.
Result<nlohmann::json> MergeProfiles(const std::vector<nlohmann::json>& nodes, const nlohmann::json& job,
                                     const modeselect::KeepLimits& keep = {});

}  // namespace bb::jobs
