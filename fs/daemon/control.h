// The control socket of a daemon: a Unix stream socket (by default <root>/bbd.sock) on which
// bbctl reads statistics and manages workspaces.
//
// One request per connection: one line of JSON in, one line of JSON out.
//   {"cmd": "stats"}                                   -> {"ok": true, ...the counters...}
//   {"cmd": "job_start", "name": N, "mode": M, "chunk_size": BYTES,
//    "metadata_server_ratio": R (modes that use one), "confidence": C, "reason": TEXT,
//    "selected_by": WHO}                               (a parsed mode file; bbctl reads the YAML)
//   {"cmd": "job_stop", "name": N}
//   {"cmd": "job_list"}                                -> {"ok": true, "jobs": [...]}
//   {"cmd": "qos_set", "job": J, "metadata": OPS, "data": BYTES}   (0 or null: no limit)
//   {"cmd": "profile_start", "name": N}                (this node counts workspace N's I/O)
//   {"cmd": "profile_stop", "name": N}                 -> {"ok": true, "profile": {...}} (profile_json.h)
//   {"cmd": "drop_caches"}                             (the kernel and daemon drop every cached entry)
// A failure is {"ok": false, "error": "what and where"}. A request that is not one line of JSON
// within 1 MiB and 10 seconds, or names an unknown command, gets such an error; nothing else
// happens. The socket is owner-only (0600): whoever can reach it controls the daemon.
//
// Connections are served by a fixed pool of threads (kControlThreads) from a bounded queue of
// accepted connections; one that finds the queue full is closed at once. So no number of
// connections over a daemon's life grows its threads or memory.
//
// Thread-safety: the handler runs on the pool's threads, concurrently.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fs/base/status.h"
#include "fs/core/placement/layout.h"

namespace bb::fs {

// Who sent a request (the peer's credentials, from the kernel).
struct ControlPeer {
  uid_t uid = 0;
  gid_t gid = 0;
  pid_t pid = 0;
};

using ControlHandler = std::function<nlohmann::json(const nlohmann::json& request, const ControlPeer& peer)>;

// One request line as JSON: EPROTO when it is not a JSON object.
Result<nlohmann::json> ParseControlRequest(std::string_view line);
// The layout a job_start request asks for (mode, chunk_size, metadata_server_ratio), checked
// against the mode table: EINVAL naming the field otherwise (control_commands.cc).
Result<WorkspaceSpec> JobStartSpec(const nlohmann::json& request);

inline constexpr size_t kControlThreads = 4;
inline constexpr size_t kControlQueue = 256;

class ControlServer {
 public:
  // Listens on `path` (replacing a stale socket there). EADDRINUSE when a live daemon answers
  // there; ENAMETOOLONG when the path does not fit a socket address.
  static Result<std::unique_ptr<ControlServer>> Start(const std::string& path, ControlHandler handler);
  // Stops accepting, waits for the connections being served, removes the socket.
  ~ControlServer();

 private:
  ControlServer(std::string path, int fd, ControlHandler handler);
  void AcceptLoop();
  void WorkerLoop();
  void Serve(int fd);

  const std::string path_;
  const int listen_fd_;
  const ControlHandler handler_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;  // guards queue_
  std::condition_variable cv_;
  std::deque<int> queue_;  // accepted connections waiting for a worker
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

// Client side (bbctl): sends `request` to the socket at `path` and returns the reply, within
// `timeout_ms`. ECONNREFUSED/ENOENT when no daemon listens there; ETIMEDOUT; EPROTO for a reply
// that is not JSON.
Result<nlohmann::json> ControlCall(const std::string& path, const nlohmann::json& request, int timeout_ms);

}  // namespace bb::fs
