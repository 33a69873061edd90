#include "fs/daemon/daemon.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <grp.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "fs/core/placement/workspace.h"
#include "fs/core/service/lock_recovery.h"
#include "fs/daemon/hosts_file.h"
#include "fs/daemon/startup.h"

namespace bb::fs {

Result<std::unique_ptr<Daemon>> Daemon::Start(const DaemonConfig& cfg) {
  // A setting that can be checked alone is checked before anything starts.
  std::optional<gid_t> metrics_gid;
  if (!cfg.metrics_group.empty()) {
    const struct group* g = ::getgrnam(cfg.metrics_group.c_str());
    if (g == nullptr) return Status(EINVAL, "metrics_group: no group named '" + cfg.metrics_group + "'");
    metrics_gid = g->gr_gid;
  }
  std::unique_ptr<Daemon> d(new Daemon);
  BB_RETURN_IF_ERROR(d->OpenStores(cfg));
  NodeView view;
  BB_RETURN_IF_ERROR(d->JoinCluster(cfg, &view));
  d->name_ = cfg.node_name;  // required of a cluster's node; one node alone goes by its host's
  if (d->name_.empty()) {
    char host[256] = {};
    d->name_ = ::gethostname(host, sizeof(host) - 1) == 0 ? host : "node" + std::to_string(d->self());
  }
  BB_RETURN_IF_ERROR(d->StartFileSystem(cfg, view));
  BB_RETURN_IF_ERROR(d->StartQos(cfg));
  auto control = ControlServer::Start(
      cfg.root + "/bbd.sock",
      [raw = d.get()](const nlohmann::json& r, const ControlPeer& p) { return raw->Control(r, p); });
  if (!control) return control.error().Annotate("cannot open the control socket");
  d->control_ = std::move(*control);
  if (!cfg.metrics_file.empty()) {
    // A relative path is in the daemon's root: one file per node, whatever flags they share.
    std::string path = cfg.metrics_file[0] == '/' ? cfg.metrics_file : cfg.root + "/" + cfg.metrics_file;
    d->metrics_ = std::make_unique<MetricsWriter>(
        path, std::chrono::seconds(cfg.metrics_interval_s),
        [raw = d.get()] { return MetricsText({raw->StatsCommand({}, {})}); }, metrics_gid);
  }
  return d;
}

Daemon::~Daemon() {
  if (coherence_) coherence_->Stop();  // its thread calls other nodes through remotes_
  control_.reset();
  metrics_.reset();
  StopQos();                                         // runs what still waits, while the file system is there
  if (coherence_) coherence_->SetHandOver(nullptr);  // before the file system goes
  fs_.reset();
  transport_.reset();  // stops serving before the stores go
  remotes_.clear();
  local_view_.reset();
  coherence_.reset();
  local_.reset();
  chunks_.reset();
  meta_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status Daemon::OpenStores(const DaemonConfig& cfg) {
  BB_ASSIGN_OR_RETURN(lock_fd_, LockRoot(cfg.root));
  LevelDbOptions meta_options;
  meta_options.spare_bytes = cfg.reserve_bytes;
  meta_options.warn = [](const std::string& text) { spdlog::warn("{}", text); };
  BB_ASSIGN_OR_RETURN(meta_, OpenLevelDbMetaStore(cfg.root + "/meta", std::move(meta_options)));
  // Keep many chunk files open: raise the descriptor limit to its maximum and use most of it.
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &lim);
    (void)::getrlimit(RLIMIT_NOFILE, &lim);
  }
  size_t max_open = lim.rlim_cur > 2048 ? std::min<size_t>(65536, lim.rlim_cur - 1024) : 512;
  BB_ASSIGN_OR_RETURN(chunks_, OpenPosixChunkStore(cfg.root, cfg.reserve_bytes, max_open, meta_.get()));
  return Status::Ok();
}

Status Daemon::JoinCluster(const DaemonConfig& cfg, NodeView* view) {
  *view = NodeView{1, 0};
  remotes_.resize(1);
  if (!cfg.cluster()) return Status::Ok();
  BB_ASSIGN_OR_RETURN(auto listen, ParseHostPort(cfg.listen));
  transport::TransportOptions topt;
  topt.listen_host = listen.first;
  topt.listen_port = listen.second;
  topt.deadline = std::chrono::milliseconds(cfg.rpc_timeout_ms);
  topt.liveness = std::chrono::milliseconds(cfg.rpc_liveness_ms);
  topt.poll_spin = std::chrono::microseconds(cfg.rpc_poll_spin_us);
  topt.max_large_in_flight = cfg.rpc_large_in_flight;
  topt.max_queued = cfg.rpc_max_queued;
  topt.served_on = ServedOnOf;
  BB_ASSIGN_OR_RETURN(topt.key, auth::LoadOrCreateKey(cfg.KeyFile()));
  auto t = transport::StartUcxTransport(topt, server_.Handler());
  if (!t) return t.error().Annotate("cannot serve on " + cfg.listen);
  transport_ = std::move(*t);
  BB_RETURN_IF_ERROR(
      PublishHost(cfg.hosts_file, {cfg.node_name, listen.first, listen.second}).Annotate("cannot publish this node"));
  BB_ASSIGN_OR_RETURN(auto hosts, WaitForHosts(cfg.hosts_file, cfg.nodes, std::chrono::seconds(60)));
  auto me = std::find_if(hosts.begin(), hosts.end(), [&](const HostEntry& h) { return h.name == cfg.node_name; });
  if (me == hosts.end()) return Status(EINVAL, "this node (" + cfg.node_name + ") is not in " + cfg.hosts_file);
  *view = NodeView{static_cast<uint32_t>(hosts.size()), static_cast<NodeId>(me - hosts.begin())};
  remotes_.resize(hosts.size());
  for (NodeId i = 0; i < hosts.size(); ++i) {
    if (i == view->self) continue;
    transport_->SetPeer(i, hosts[i].host, hosts[i].port);
    remotes_[i] = NewRemoteNodeService(transport_.get(), i, std::chrono::milliseconds(cfg.rpc_timeout_ms));
  }
  transport_->SetSelf(view->self);  // peers count requests by sender from now on
  spdlog::info("node {} of {} ({}), serving on {}", view->self, hosts.size(), cfg.node_name, cfg.listen);
  return Status::Ok();
}

namespace {

// Every node holds a copy of the root directory. A restarted daemon has its own and serves at
// once, whichever nodes are still down (their names fail with EIO until they are back, and each
// finds its own copy when it starts), so daemons may be started again in any order. A new store
// makes the copies everywhere, retrying for a while as other nodes may still be starting: a node
// that cannot reach the others fails to start, naming the node.
Status MakeRoot(FileSystem* fs) {
  Status init;
  for (int i = 0; i < 100; ++i) {
    init = fs->Init(Caller{::getuid(), ::getgid(), ::getpid()});
    if (init.ok() || (init.code() != EIO && init.code() != ETIMEDOUT)) break;
    ::usleep(100000);
  }
  return init.Annotate("cannot create the root directory");
}

}  // namespace

Status Daemon::StartFileSystem(const DaemonConfig& cfg, NodeView view) {
  // Everything outside workspaces uses the default layout (mode 3, distributed hashing).
  router_ = std::make_unique<WorkspaceRouter>(WorkspaceSpec{{}, static_cast<uint32_t>(cfg.chunk_size)}, view);
  BB_RETURN_IF_ERROR(LoadWorkspaces(meta_.get(), router_.get()).Annotate("cannot read the workspace table"));
  stats_ = std::make_unique<NodeStats>(view.nodes);
  // Lock requests wait (EINPROGRESS) until this node has taken back the locks it keeps.
  kept_locks_ = std::make_unique<LockTables>(/*recovering=*/view.nodes > 1);
  local_ = NewLocalNodeService(meta_.get(), chunks_.get(),
                               {cfg.root, cfg.reserve_bytes, router_.get(), stats_.get(), kept_locks_.get()});
  // Kernels cache entries and attributes for the timeout; in a cluster each node tells the
  // others of what changed (fs/core/coherence/coherence.h), and remembers who read a path for a second
  // longer than the timeout (a reply may take that long to reach the kernel).
  double timeout = cfg.EffectiveCacheTimeout();
  int64_t hold_ns = cfg.cluster() && timeout > 0 ? static_cast<int64_t>((timeout + 1) * 1e9) : 0;
  // Callbacks past kCallbackCapacity (about 80 MB of them) are given up early, their holders told.
  constexpr size_t kCallbackCapacity = 512 << 10;
  coherence_ = std::make_unique<Coherence>(
      view, hold_ns, &clock_, [this](NodeId n) { return n < remotes_.size() ? remotes_[n].get() : nullptr; },
      [router = router_.get()](const std::string& path) { return router->Resolve(path).node_private(); },
      kCallbackCapacity);
  // A restarted daemon (its store holds its copy of the root already) forgot who caches the names
  // it holds: the others drop their caches before it serves them. A new one holds nothing anyone
  // cached.
  const bool restarted = local_->GetMeta("/").has_value();
  if (restarted) coherence_->DropEverywhere();
  local_view_ = std::make_unique<CoherentView>(local_.get(), coherence_.get(), view.self);
  server_.Attach(local_.get(), coherence_.get());
  ids_ = std::make_unique<FileIdAllocator>(meta_.get(), view.self);
  std::vector<NodeService*> services(view.nodes);
  for (NodeId i = 0; i < view.nodes; ++i) services[i] = i == view.self ? local_view_.get() : remotes_[i].get();
  FileSystemOptions fo;
  fo.chunk_size = static_cast<uint32_t>(cfg.chunk_size);
  fo.write_behind_bytes = cfg.write_behind_bytes;
  fo.io_threads = cfg.io_threads;
  fo.prefault_write_behind = view.nodes > 1;
  // Attributes read from an owner answer here for the kernel's timeout, as the owner tells
  // this node of every change within its hold.
  fo.attr_cache_ns = hold_ns > 0 ? static_cast<int64_t>(timeout * 1e9) : 0;
  fo.statahead_window = cfg.statahead;
  fo.small_file_streams = cfg.small_file_streams;
  fo.dir_leases = cfg.dir_leases;
  fo.chunk_removal_journal = meta_.get();
  fs_ = std::make_unique<FileSystem>(
      fo, router_.get(), [services](NodeId n) { return services[n]; }, ids_.get(), &clock_, stats_.get());
  // Owners of names reserved for this node ask for what it made on them (deferred_creates.h).
  coherence_->SetHandOver(
      [fs = fs_.get()](const std::vector<std::string>& paths, NodeId owner) { return fs->HandOver(paths, owner); },
      [fs = fs_.get()](const std::string& dir, NodeId owner) { return fs->HandOverDir(dir, owner); },
      [fs = fs_.get()](NodeId owner) { fs->OwnerReset(owner); },
      [fs = fs_.get()](NodeId keeper, uint64_t after, uint32_t limit) {
        return fs->HeldLocksKeptBy(keeper, after, limit);
      });
  RecoverKeptLocks(view);
  mount_ = cfg.mount;
  return restarted ? Status::Ok() : MakeRoot(fs_.get());
}

void Daemon::RecoverKeptLocks(NodeView view) {
  if (view.nodes <= 1) return;
  LockRecovery locks = RecoverLocks(
      view, [this](NodeId n) { return remotes_[n].get(); }, kept_locks_.get());
  spdlog::info("locks: {} taken back from their holders{}", locks.taken_back,
               locks.refused > 0 ? fmt::format(", {} refused (conflicting)", locks.refused) : "");
  if (!locks.unreachable.empty()) {
    spdlog::warn("locks: nodes {} did not answer; what their processes held at this node is not taken back",
                 fmt::join(locks.unreachable, ", "));
  }
}

Status Daemon::StartQos(const DaemonConfig& cfg) {
  if (!cfg.QosActive()) return Status::Ok();
  jobs_ = std::make_unique<qos::JobResolver>(&clock_, cfg.qos_identity == "environment");
  stage_ = std::make_unique<qos::Stage>(&clock_, cfg.qos_threads);
  channels_ = std::make_unique<qos::ChannelCache>(stage_.get(), jobs_.get(), &clock_);
  for (const auto& [job, lim] : cfg.qos_limits) {
    if (lim.metadata) stage_->SetLimit(job, qos::Class::kMetadata, qos::Limit{*lim.metadata, 0});
    if (lim.data) stage_->SetLimit(job, qos::Class::kData, qos::Limit{*lim.data, 0});
  }
  if (!cfg.qos_controller.empty()) {
    BB_ASSIGN_OR_RETURN(auto hp, ParseHostPort(cfg.qos_controller));
    if (cfg.KeyFile().empty()) {
      return Status(EINVAL, "qos_controller needs cluster_key_file: the key file bb-controller was given (--key-file)");
    }
    BB_ASSIGN_OR_RETURN(auto key, auth::LoadOrCreateKey(cfg.KeyFile()));
    qos_client_ = std::make_unique<qos::QosClient>(stage_.get(), name_, hp.first, hp.second, key);
  }
  spdlog::info("QoS stage on: {} static limits{}", cfg.qos_limits.size(),
               cfg.qos_controller.empty() ? "" : ", controller " + cfg.qos_controller);
  return Status::Ok();
}

void Daemon::StopQos() {
  qos_client_.reset();
  channels_.reset();
  stage_.reset();
}

}  // namespace bb::fs
