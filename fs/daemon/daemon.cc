#include "fs/daemon/daemon.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "fs/core/workspace.h"
#include "fs/daemon/hosts_file.h"
#include "fs/daemon/mode_file.h"
#include "fs/daemon/startup.h"
#include "fs/rpc/node_rpc.h"

namespace bb::fs {

Result<std::unique_ptr<Daemon>> Daemon::Start(const DaemonConfig& cfg) {
  std::unique_ptr<Daemon> d(new Daemon);
  BB_RETURN_IF_ERROR(d->Open(cfg));
  return d;
}

Daemon::~Daemon() {
  control_.reset();
  StopQos();  // runs what still waits, while the file system is there
  fs_.reset();
  transport_.reset();  // stops serving before the stores go
  remotes_.clear();
  local_.reset();
  chunks_.reset();
  meta_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Status Daemon::Open(const DaemonConfig& cfg) {
  BB_ASSIGN_OR_RETURN(lock_fd_, LockRoot(cfg.root));
  BB_ASSIGN_OR_RETURN(meta_, OpenLevelDbMetaStore(cfg.root + "/meta"));
  // Keep many chunk files open: raise the descriptor limit to its maximum and use most of it.
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &lim);
    (void)::getrlimit(RLIMIT_NOFILE, &lim);
  }
  size_t max_open = lim.rlim_cur > 2048 ? std::min<size_t>(65536, lim.rlim_cur - 1024) : 512;
  BB_ASSIGN_OR_RETURN(chunks_, OpenPosixChunkStore(cfg.root, cfg.reserve_bytes, max_open));
  NodeId self = 0;
  uint32_t nodes = 1;
  std::vector<std::pair<NodeId, NodeService*>> peers;
  if (cfg.cluster()) {
    BB_ASSIGN_OR_RETURN(auto listen, ParseHostPort(cfg.listen));
    transport::TransportOptions topt;
    topt.listen_host = listen.first;
    topt.listen_port = listen.second;
    topt.deadline = std::chrono::milliseconds(cfg.rpc_timeout_ms);
    topt.poll_spin = std::chrono::microseconds(cfg.rpc_poll_spin_us);
    topt.max_large_in_flight = cfg.rpc_large_in_flight;
    topt.run_inline = ServeInline;
    // Requests that come before this node is assembled are answered EIO; callers retry.
    std::atomic<NodeService*>* served = &served_;
    auto t = transport::StartUcxTransport(topt, [served](uint16_t op, std::string_view p, std::string_view b) {
      NodeService* local = served->load(std::memory_order_acquire);
      if (local == nullptr) return transport::Response{EIO, "node is starting", {}};
      return ServeNodeRequest(*local, op, p, b);
    });
    if (!t) return t.error().Annotate("cannot serve on " + cfg.listen);
    transport_ = std::move(*t);
    BB_RETURN_IF_ERROR(PublishHost(cfg.hosts_file, {cfg.node_name, listen.first, listen.second})
                           .Annotate("cannot publish this node"));
    BB_ASSIGN_OR_RETURN(auto hosts, WaitForHosts(cfg.hosts_file, cfg.nodes, std::chrono::seconds(60)));
    bool found = false;
    for (size_t i = 0; i < hosts.size(); ++i) {
      if (hosts[i].name == cfg.node_name) {
        self = static_cast<NodeId>(i);
        found = true;
        continue;
      }
      transport_->SetPeer(static_cast<NodeId>(i), hosts[i].host, hosts[i].port);
      remotes_.push_back(NewRemoteNodeService(transport_.get(), static_cast<NodeId>(i),
                                              std::chrono::milliseconds(cfg.rpc_timeout_ms)));
      peers.emplace_back(static_cast<NodeId>(i), remotes_.back().get());
    }
    if (!found) return Status(EINVAL, "this node (" + cfg.node_name + ") is not in " + cfg.hosts_file);
    nodes = static_cast<uint32_t>(hosts.size());
    transport_->SetSelf(self);  // peers count requests by sender from now on
    spdlog::info("node {} of {} ({}), serving on {}", self, hosts.size(), cfg.node_name, cfg.listen);
  }
  // Everything outside workspaces uses the default layout (mode 3, distributed hashing).
  router_ = std::make_unique<WorkspaceRouter>(LayoutOptions{}, cfg.chunk_size, self, nodes);
  BB_RETURN_IF_ERROR(LoadWorkspaces(meta_.get(), router_.get()).Annotate("cannot read the workspace table"));
  stats_ = std::make_unique<NodeStats>(nodes);
  LocalNodeOptions lo{cfg.root, cfg.reserve_bytes, router_.get(), stats_.get()};
  local_ = NewLocalNodeService(meta_.get(), chunks_.get(), lo);
  services_.assign(nodes, nullptr);
  services_[self] = local_.get();
  for (auto& [id, service] : peers) services_[id] = service;
  served_.store(local_.get(), std::memory_order_release);
  ids_ = std::make_unique<FileIdAllocator>(meta_.get(), self);
  FileSystemOptions fo;
  fo.chunk_size = static_cast<uint32_t>(cfg.chunk_size);
  fo.write_behind_bytes = cfg.write_behind_bytes;
  fo.io_threads = cfg.io_threads;
  fo.prefault_write_behind = cfg.cluster() && nodes > 1;
  std::vector<NodeService*> services = services_;
  fs_ = std::make_unique<FileSystem>(fo, router_.get(), [services](NodeId n) { return services[n]; },
                                     ids_.get(), &clock_, stats_.get());
  // Another node may still be starting: retry creating the root for a while.
  Status init;
  for (int i = 0; i < 100; ++i) {
    init = fs_->Init(Caller{::getuid(), ::getgid(), ::getpid()});
    if (init.ok() || (init.code() != EIO && init.code() != ETIMEDOUT)) break;
    ::usleep(100000);
  }
  BB_RETURN_IF_ERROR(init.Annotate("cannot create the root directory"));
  mount_ = cfg.mount;
  if (cfg.QosActive()) {
    jobs_ = std::make_unique<qos::JobResolver>(&clock_);
    stage_ = std::make_unique<qos::Stage>(&clock_, cfg.qos_threads);
    for (const auto& [job, lim] : cfg.qos_limits) {
      if (lim.metadata) stage_->SetLimit(job, qos::Class::kMetadata, qos::Limit{*lim.metadata, 0});
      if (lim.data) stage_->SetLimit(job, qos::Class::kData, qos::Limit{*lim.data, 0});
    }
    if (!cfg.qos_controller.empty()) {
      BB_ASSIGN_OR_RETURN(auto hp, ParseHostPort(cfg.qos_controller));
      std::string node = cfg.node_name.empty() ? "node" + std::to_string(self) : cfg.node_name;
      qos_client_ = std::make_unique<qos::QosClient>(stage_.get(), node, hp.first, hp.second);
    }
    spdlog::info("QoS stage on: {} static limits{}", cfg.qos_limits.size(),
                 cfg.qos_controller.empty() ? "" : ", controller " + cfg.qos_controller);
  }
  auto control = ControlServer::Start(cfg.root + "/bbd.sock", [this](const nlohmann::json& r, const ControlPeer& p) {
    return Control(r, p);
  });
  if (!control) return control.error().Annotate("cannot open the control socket");
  control_ = std::move(*control);
  return Status::Ok();
}

void Daemon::StopQos() {
  qos_client_.reset();
  stage_.reset();
}

namespace {

nlohmann::json Failure(const Status& s) {
  return {{"ok", false}, {"error", s.message()}, {"errno", s.code()}};
}

nlohmann::json SpecJson(const std::string& name, const WorkspaceSpec& spec) {
  nlohmann::json j = {{"name", name}, {"mode", static_cast<int>(spec.layout.mode)}, {"chunk_size", spec.chunk_size}};
  if (spec.layout.mode == LayoutMode::kCentralizedMeta) j["metadata_server_ratio"] = spec.layout.metadata_server_ratio;
  return j;
}

// The string field `key` of a request, or an error naming it.
Result<std::string> Field(const nlohmann::json& r, const char* key) {
  auto it = r.find(key);
  if (it == r.end() || !it->is_string()) return Status(EINVAL, std::string("request needs a string field '") + key + "'");
  return it->get<std::string>();
}

}  // namespace

nlohmann::json Daemon::Control(const nlohmann::json& request, const ControlPeer& peer) {
  auto cmd = Field(request, "cmd");
  if (!cmd) return Failure(cmd.error());
  if (*cmd == "stats") {
    nlohmann::json ops = nlohmann::json::object();
    for (size_t i = 0; i < kFsOpCount; ++i) ops[FsOpName(static_cast<FsOp>(i))] = stats_->ops(static_cast<FsOp>(i));
    nlohmann::json to = nlohmann::json::array();
    for (uint32_t n = 0; n < stats_->nodes(); ++n) {
      const auto& t = stats_->to(n);
      to.push_back({{"node", n},
                    {"meta_requests", t.meta_requests.load()},
                    {"data_requests", t.data_requests.load()},
                    {"read_bytes", t.read_bytes.load()},
                    {"write_bytes", t.write_bytes.load()}});
    }
    const auto& sv = stats_->served();
    nlohmann::json peers = nlohmann::json::array();
    if (transport_) {
      for (const auto& c : transport_->Counters()) {
        peers.push_back({{"peer", c.peer},
                         {"calls_sent", c.calls_sent},
                         {"calls_failed", c.calls_failed},
                         {"bytes_sent", c.bytes_sent},
                         {"bytes_received", c.bytes_received},
                         {"requests_received", c.requests_received},
                         {"request_bytes_received", c.request_bytes_received}});
      }
    }
    return {{"ok", true},
            {"time_ns", clock_.MonotonicNs()},
            {"node", self()},
            {"nodes", nodes()},
            {"ops", ops},
            {"replicated_reads", stats_->replicated_reads()},
            {"to", to},
            {"served",
             {{"meta_ops", sv.meta_ops.load()},
              {"data_ops", sv.data_ops.load()},
              {"read_bytes", sv.read_bytes.load()},
              {"write_bytes", sv.write_bytes.load()}}},
            {"peers", peers},
            {"workspaces", router_->List().size()},
            {"qos", QosJson()}};
  }
  if (*cmd == "qos_set") {
    if (!stage_) return Failure(Status(EINVAL, "the QoS stage is off on this node (qos_stage: off, or nothing configured; start bbd with --qos-stage on)"));
    auto job = Field(request, "job");
    if (!job) return Failure(job.error());
    for (auto [key, cls] : {std::pair{"metadata", qos::Class::kMetadata}, std::pair{"data", qos::Class::kData}}) {
      if (!request.contains(key)) continue;
      const auto& v = request[key];
      if (v.is_null() || (v.is_number() && v.get<double>() == 0)) {
        stage_->SetLimit(*job, cls, std::nullopt);
      } else if (v.is_number() && v.get<double>() > 0) {
        stage_->SetLimit(*job, cls, qos::Limit{v.get<double>(), 0});
      } else {
        return Failure(Status(EINVAL, std::string("field '") + key + "' must be a rate above 0, or 0/null for no limit"));
      }
    }
    return {{"ok", true}, {"qos", QosJson()}};
  }
  if (*cmd == "job_list") {
    nlohmann::json jobs = nlohmann::json::array();
    for (const auto& [name, spec] : router_->List()) {
      auto j = SpecJson(name, spec);
      j["path"] = mount_ + "/" + name;
      jobs.push_back(j);
    }
    return {{"ok", true}, {"jobs", jobs}};
  }
  if (*cmd == "job_start") {
    auto name = Field(request, "name");
    if (!name) return Failure(name.error());
    auto text = Field(request, "mode_file");
    if (!text) return Failure(text.error());
    std::string source = "mode file";
    if (request.contains("source")) {
      auto named = Field(request, "source");
      if (!named) return Failure(named.error());
      source = *named;
    }
    auto mode = ParseModeFile(*text, source);
    if (!mode) return Failure(mode.error());
    WorkspaceSpec spec{mode->layout, static_cast<uint32_t>(mode->chunk_size)};
    Status s = fs_->CreateWorkspace(*name, spec, Caller{peer.uid, peer.gid, peer.pid});
    if (!s.ok()) return Failure(s);
    spdlog::info("workspace {} created: mode {} ({} by {})", *name, static_cast<int>(spec.layout.mode),
                 mode->reason.empty() ? "no reason given" : mode->reason, mode->selected_by);
    auto j = SpecJson(*name, spec);
    j["ok"] = true;
    j["path"] = mount_ + "/" + *name;
    return j;
  }
  if (*cmd == "job_stop") {
    auto name = Field(request, "name");
    if (!name) return Failure(name.error());
    Status s = fs_->RemoveWorkspace(*name, *router_);
    if (!s.ok()) return Failure(s);
    spdlog::info("workspace {} removed", *name);
    return {{"ok", true}, {"name", *name}};
  }
  return Failure(Status(EINVAL, "unknown command '" + *cmd + "' (known: stats, job_start, job_stop, job_list, qos_set)"));
}

nlohmann::json Daemon::QosJson() {
  nlohmann::json q = {{"stage", stage_ != nullptr}};
  if (!stage_) return q;
  q["controller"] = qos_client_ ? (qos_client_->connected() ? "connected" : "disconnected") : "none";
  nlohmann::json channels = nlohmann::json::array();
  for (const auto& c : stage_->Stats()) {
    channels.push_back({{"job", c.job},
                        {"class", qos::ClassName(c.cls)},
                        {"limit", c.limit ? nlohmann::json(*c.limit) : nlohmann::json(nullptr)},
                        {"ops", c.ops},
                        {"units", c.units},
                        {"rate", c.rate},
                        {"queued", c.queued},
                        {"waited", c.waited},
                        {"wait_ms_total", c.wait_ms_total},
                        {"wait_ms_max", c.wait_ms_max}});
  }
  q["channels"] = channels;
  return q;
}

}  // namespace bb::fs
