// Profiles: the per-file I/O profile of a workspace, counted by the daemon of every node while a
// probe run has it switched on (bbctl job run --profile; docs/architecture.md#mode-selection). A
// node counts what its own processes did: per file what Darshan's POSIX module would count, plus
// what Darshan cannot see — which nodes and processes made, opened, wrote, read and stat'ed each
// file and directory. A snapshot of one node travels as JSON (fs/daemon/profile_json.h); bbctl
// merges the nodes' snapshots into one document, whose format is described in
// tools/jobs/profile_doc.h.
//
// Node ids are the cluster's; a process is named by its node and pid. Counting costs one
// atomic load per operation while no workspace is profiled.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fs/core/placement/layout.h"

namespace bb::fs {

inline constexpr int kProfileVersion = 1;
inline constexpr size_t kSizeBins = 10;
// The Darshan bin of a request of `bytes`.
size_t SizeBin(uint64_t bytes);

struct FileProfile {
  std::string path;  // last known, inside the workspace
  uint64_t opens = 0, reads = 0, writes = 0, bytes_read = 0, bytes_written = 0;
  std::array<uint64_t, kSizeBins> read_sizes{}, write_sizes{};
  uint64_t seq_reads = 0, consec_reads = 0, seq_writes = 0, consec_writes = 0, seeks = 0;
  uint64_t stats = 0, fsyncs = 0, truncates = 0, renames = 0, unlinks = 0, append_writes = 0;
  uint64_t max_offset = 0;
  int64_t first_ns = 0, last_ns = 0;                                                  // wall clock
  bool created = false, opened = false, written = false, read = false, stat = false;  // on this node
  std::set<pid_t> writers, readers;
  std::map<pid_t, uint64_t> last_end;  // per process: where its previous access ended
};

struct DirProfile {
  std::string path;
  uint64_t creates = 0, unlinks = 0, lookups = 0, readdirs = 0;
  bool created = false, made_entries = false, looked_up = false, listed = false;  // on this node
};

struct TimeBucket {
  uint64_t meta_ops = 0, data_ops = 0, bytes_read = 0, bytes_written = 0;
};

// What one node counted for one workspace.
struct ProfileSnapshot {
  NodeId node = 0;
  int64_t start_ns = 0;                                 // wall clock at the start
  std::map<uint64_t, FileProfile> files;                // by file id
  std::map<std::string, DirProfile, std::less<>> dirs;  // by path; looked up by string_view
  std::vector<TimeBucket> timeline;                     // 1-s buckets from start_ns
};

// One profiled workspace's counts, for hooks that hold on to it (an open file: its reads and
// writes then skip the lookup by name). Defined in profile.cc.
struct ProfileWorkspace;
using ProfileHandle = std::shared_ptr<ProfileWorkspace>;

class Profiles {
 public:
  // `node` is this node's id. Times are the callers' (wall clock, ns).
  explicit Profiles(NodeId node) : node_(node) {}
  Profiles(const Profiles&) = delete;
  Profiles& operator=(const Profiles&) = delete;

  // Starts (or restarts, from zero) counting for workspace `domain`.
  void Start(const std::string& domain, int64_t now_ns);
  // Stops counting and returns what was counted; nullopt when the workspace was not profiled.
  std::optional<ProfileSnapshot> Stop(const std::string& domain);
  // What has been counted so far; nullopt when the workspace is not profiled.
  std::optional<ProfileSnapshot> Snapshot(const std::string& domain) const;
  // True while any workspace is profiled (the only cost of the hooks otherwise).
  bool active() const { return active_.load(std::memory_order_relaxed); }

  // The profile of `domain` for later hooks (null when it is not profiled). Counting through it
  // ends with Stop, as it does by name.
  ProfileHandle For(const std::string& domain) const;

  // The hooks, each a no-op unless `domain` is profiled. Paths are absolute; the profile keeps
  // them relative to the workspace's root.
  void Created(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, pid_t pid,
               int64_t now_ns);
  void Opened(const ProfileHandle& w, const std::string& path, uint64_t file_id, pid_t pid, int64_t now_ns);
  // A read or write of `bytes` at `offset` by process `pid`.
  void Accessed(const ProfileHandle& w, uint64_t file_id, bool write, uint64_t offset, uint64_t bytes, bool append,
                pid_t pid, int64_t now_ns);
  // A stat (count) or a lookup that found the entry (!count: the node used it, nothing counted).
  void Stat(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, bool count,
            int64_t now_ns);
  void Lookup(const std::string& domain, const std::string& dir, int64_t now_ns);
  void ListDir(const std::string& domain, const std::string& dir, int64_t now_ns);
  void Removed(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, int64_t now_ns);
  void Renamed(const std::string& domain, const std::string& from, const std::string& to, uint64_t file_id,
               int64_t now_ns);
  void Synced(const ProfileHandle& w, uint64_t file_id, int64_t now_ns);
  void Truncated(const std::string& domain, uint64_t file_id, int64_t now_ns);

 private:
  using Workspace = ProfileWorkspace;

  const NodeId node_;
  std::atomic<bool> active_{false};
  mutable std::shared_mutex mu_;  // guards workspaces_ (the map; each Workspace has its own lock)
  std::map<std::string, std::shared_ptr<Workspace>> workspaces_;
};

}  // namespace bb::fs
