// The daemons' counters in the Prometheus text exposition format (version 0.0.4), for
// `bbctl metrics` and the daemon's `metrics_file` (a node_exporter textfile collector reads it).
//
// The input is what the control socket's `stats` command answers (`bbctl stats --json`), one
// object per node; every series carries the label node="<name>" and node_id="<index>" (node="<index>"
// alone for a node that reports no name). The metrics, one row each in
// kMetrics (metrics.cc), with their labels:
//   bb_fs_operations_total{op}                 file system operations (FUSE requests) by type
//   bb_fs_errors_total{errno}                  operations answered with an error, by errno
//   bb_requests_total{peer,kind,locality}      metadata/data requests this node sent, by node
//   bb_data_bytes_total{peer,direction,locality}  chunk bytes read from / written to each node
//   bb_served_requests_total{kind}             requests this node's stores served
//   bb_served_bytes_total{direction}           chunk bytes they read and wrote
//   bb_rpc_calls_total{peer}                   calls to other nodes (failed, extended: below)
//   bb_rpc_failed_total{peer}, bb_rpc_extended_total{peer}, bb_rpc_pushed_back_total{peer}
//   bb_rpc_sent_bytes_total{peer}, bb_rpc_received_bytes_total{peer}
//   bb_rpc_latency_seconds{peer}               histogram of call latency
//   bb_rpc_requests_received_total{peer}       requests other nodes sent here
//   bb_qos_operations_total{job,class}, bb_qos_units_total{job,class} (ops or bytes)
//   bb_qos_rate{job,class}                     measured rate, units/s
//   bb_qos_limit{job,class}                    the channel's limit (absent: unlimited)
//   bb_qos_queued{job,class}                   requests waiting for tokens now
//   bb_qos_waited_total{job,class}, bb_qos_wait_seconds_total{job,class}
//   bb_small_files_total{event}                streams of small files (fs/core/creates/deferred_creates.h):
//                                              made here, stored with the first write, handed over, lost
//   bb_space_bytes{kind}                       the backing store: total, free, avail
//   bb_workspaces, bb_nodes                    gauges
//
// Thread-safety: pure functions.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace bb::fs {

// The exposition of `nodes` (stats objects). Malformed or missing fields are left out, never
// an error: a metric a node does not report is absent for that node.
std::string MetricsText(const std::vector<nlohmann::json>& nodes);

// Writes `text()` to `path` every `interval` (atomically: a temporary file renamed over it, so
// a collector never reads half of one), from a thread of its own; the first write at once. A
// write that fails is logged once until one succeeds again. The file is 0644 (a collector runs
// as a user of its own), or 0640 owned by `gid` when one is given, whatever the daemon's umask;
// it is removed when the writer goes, so no stale counters outlive the daemon.
class MetricsWriter {
 public:
  MetricsWriter(std::string path, std::chrono::seconds interval, std::function<std::string()> text,
                std::optional<gid_t> gid = std::nullopt);
  ~MetricsWriter();

 private:
  void WriteOnce();

  const std::string path_;
  const std::chrono::seconds interval_;
  const std::function<std::string()> text_;
  const std::optional<gid_t> gid_;
  bool failing_ = false;  // its thread only
  std::mutex mu_;         // guards stop_
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bb::fs
