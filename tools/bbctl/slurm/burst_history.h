// Every production run is a probe for the next. For a job with `#BB mode=auto`, every node's
// daemon counts the I/O profile of the job's workspace while the job runs (from after stage-in
// to before stage-out); the epilog merges the nodes' profiles into one document
// (tools/jobs/profile_doc.h) and keeps it in the job's user's history, keyed by the job script's
// text and the number of nodes. The next mode=auto job of the same script on as many nodes
// decides from its static evidence and that profile, with no probe run, and its output says so.
//
// The history: <home of the job's user>/.cache/bbfs/profiles/<key>.json, written and read as
// that user (the profile names the job's files). Per job on the shared state folder (burst.h):
// `profiling` (the job is profiled), `profile.<node id>.json` (a node's part, 0600).
//
// Thread-safety: one command per process.
#pragma once

#include <string>

#include "fs/base/status.h"
#include "tools/bbctl/slurm/burst_job.h"

namespace bb::ctl {

// "<16 hex digits of the script's hash>-n<nodes>": the same script on another node count is
// another entry (its placement, and so its profile, differ).
std::string HistoryKey(const std::string& script_text, size_t nodes);
// Where the job's user keeps the profile of `key`; "" when the user has no home.
std::string HistoryPath(const BurstJob& j, const std::string& key);

// Starts this node's daemon counting the job's workspace. Records `profiling` (first node).
Status StartProfile(const BurstJob& j);
// Stops it and writes this node's part to the state folder; nothing when the job is not profiled.
Status SaveNodeProfile(const BurstJob& j);
// First node, once every node has saved its part: merges them and keeps the document in the
// user's history. Returns the line for the job's output ("" when the job was not profiled).
std::string KeepProfile(const BurstJob& j, const std::string& script_text);

}  // namespace bb::ctl
