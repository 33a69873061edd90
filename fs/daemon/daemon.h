// Daemon: everything one bbd serves, assembled from its configuration — the stores, the
// local node service, and for a cluster the transport, the membership and the remote node
// services — the FileSystem core on top, the QoS stage, and the control socket
// <root>/bbd.sock (statistics, workspaces, QoS limits; the commands are in
// control_commands.cc). The FUSE session is not part of it.
//
// Thread-safety: construct and destroy on one thread; fs() is thread-safe like FileSystem, and
// Control may be called from any number of threads.
#pragma once

#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "fs/core/coherence/coherence.h"
#include "fs/core/coherence/coherent_view.h"
#include "fs/core/file_system.h"
#include "fs/core/observe/stats.h"
#include "fs/core/placement/workspace.h"
#include "fs/daemon/config.h"
#include "fs/daemon/control.h"
#include "fs/daemon/metrics.h"
#include "fs/rpc/node_rpc.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"
#include "qos/channel_cache.h"
#include "qos/client.h"
#include "qos/job_identity.h"
#include "qos/stage.h"
#include "transport/transport.h"

namespace bb::fs {

class Daemon {
 public:
  // Locks the root, opens the stores, and for a cluster starts serving, publishes this node in
  // the hosts file and waits (up to 60 s) for all nodes; then creates the root directory.
  // The error says which step failed.
  static Result<std::unique_ptr<Daemon>> Start(const DaemonConfig& cfg);
  ~Daemon();

  FileSystem& fs() { return *fs_; }
  // The QoS stage and the cache of each calling process's channels, or null when the stage
  // is off.
  qos::Stage* stage() { return stage_.get(); }
  NodeStats* stats() { return stats_.get(); }
  Coherence* coherence() { return coherence_.get(); }
  qos::ChannelCache* channels() { return channels_.get(); }
  // Stops the QoS stage and its controller link: requests still waiting for tokens run now.
  // Call while the FUSE session still exists (they answer their requests through it).
  void StopQos();
  // Answers one request of the control socket (fs/daemon/control.h).
  nlohmann::json Control(const nlohmann::json& request, const ControlPeer& peer);
  NodeId self() const { return router_->view().self; }
  uint32_t nodes() const { return router_->view().nodes; }

 private:
  Daemon() = default;
  // The steps of Start, in order.
  Status OpenStores(const DaemonConfig& cfg);
  // For a cluster: serves, publishes this node, waits for the others; sets `view`.
  Status JoinCluster(const DaemonConfig& cfg, NodeView* view);
  Status StartFileSystem(const DaemonConfig& cfg, NodeView view);
  // Drops this node's old locks at the others and takes back those it keeps (RecoverLocks).
  void RecoverKeptLocks(NodeView view);
  Status StartQos(const DaemonConfig& cfg);

  // The control commands (control_commands.cc).
  nlohmann::json StatsCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json QosSetCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json JobListCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json JobStartCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json JobStopCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json ProfileStartCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json ProfileStopCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json DropCachesCommand(const nlohmann::json& request, const ControlPeer& peer);
  nlohmann::json QosJson();
  nlohmann::json CoherenceJson();      // invalidations sent, failed and received; callbacks held
  nlohmann::json StataheadJson();      // read-aheads made, entries they brought, lookups they answered
  nlohmann::json ChunkRemovalsJson();  // files freed behind their unlink, requests, failures
  nlohmann::json SmallFilesJson();
  nlohmann::json PeersJson();       // the transport's counters per peer
  nlohmann::json WorkspacesJson();  // each workspace this node routes: name, mode, chunk size

  int lock_fd_ = -1;
  std::unique_ptr<MetaStore> meta_;
  std::unique_ptr<ChunkStore> chunks_;
  NodeServer server_;  // before the transport, which calls it
  std::unique_ptr<transport::Transport> transport_;
  std::vector<std::unique_ptr<NodeService>> remotes_;  // by node id; null for this node
  std::unique_ptr<LockTables> kept_locks_;             // before local_, which uses them
  std::unique_ptr<NodeService> local_;
  std::unique_ptr<Coherence> coherence_;
  std::unique_ptr<CoherentView> local_view_;  // the local store as this node (the core's)
  std::unique_ptr<WorkspaceRouter> router_;
  std::unique_ptr<NodeStats> stats_;
  std::unique_ptr<FileIdAllocator> ids_;
  SystemClock clock_;
  std::unique_ptr<FileSystem> fs_;
  std::string mount_;
  std::string name_;  // node_name, else the host name: what metrics and the QoS controller call it
  std::unique_ptr<qos::JobResolver> jobs_;
  std::unique_ptr<qos::Stage> stage_;
  std::unique_ptr<qos::ChannelCache> channels_;
  std::unique_ptr<qos::QosClient> qos_client_;
  std::unique_ptr<MetricsWriter> metrics_;
  std::unique_ptr<ControlServer> control_;  // last: stops before the rest goes
};

}  // namespace bb::fs
