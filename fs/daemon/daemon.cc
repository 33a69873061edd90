#include "fs/daemon/daemon.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "fs/core/layout.h"
#include "fs/daemon/hosts_file.h"
#include "fs/daemon/startup.h"
#include "fs/rpc/node_rpc.h"

namespace bb::fs {

Result<std::unique_ptr<Daemon>> Daemon::Start(const DaemonConfig& cfg) {
  std::unique_ptr<Daemon> d(new Daemon);
  BB_RETURN_IF_ERROR(d->Open(cfg));
  return d;
}

Daemon::~Daemon() {
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
  local_ = NewLocalNodeService(meta_.get(), chunks_.get(), {cfg.root, cfg.reserve_bytes});
  NodeId self = 0;
  if (!cfg.cluster()) {
    services_ = {local_.get()};
    router_ = std::make_unique<LayoutRouter>(LayoutOptions{}, 0, 1);
  } else {
    BB_ASSIGN_OR_RETURN(auto listen, ParseHostPort(cfg.listen));
    transport::TransportOptions topt;
    topt.listen_host = listen.first;
    topt.listen_port = listen.second;
    topt.deadline = std::chrono::milliseconds(cfg.rpc_timeout_ms);
    NodeService* local = local_.get();
    auto t = transport::StartUcxTransport(topt, [local](uint16_t op, std::string_view p, std::string_view b) {
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
        services_.push_back(local_.get());
        continue;
      }
      transport_->SetPeer(static_cast<NodeId>(i), hosts[i].host, hosts[i].port);
      remotes_.push_back(NewRemoteNodeService(transport_.get(), static_cast<NodeId>(i),
                                              std::chrono::milliseconds(cfg.rpc_timeout_ms)));
      services_.push_back(remotes_.back().get());
    }
    if (!found) return Status(EINVAL, "this node (" + cfg.node_name + ") is not in " + cfg.hosts_file);
    // The instance's root uses the default layout (mode 3, distributed hashing).
    router_ = std::make_unique<LayoutRouter>(LayoutOptions{}, self, static_cast<uint32_t>(hosts.size()));
    spdlog::info("node {} of {} ({}), serving on {}", self, hosts.size(), cfg.node_name, cfg.listen);
  }
  ids_ = std::make_unique<FileIdAllocator>(meta_.get(), self);
  FileSystemOptions fo;
  fo.chunk_size = static_cast<uint32_t>(cfg.chunk_size);
  std::vector<NodeService*> services = services_;
  fs_ = std::make_unique<FileSystem>(fo, router_.get(),
                                     [services](NodeId n) { return services[n]; }, ids_.get(), &clock_);
  // Another node may still be starting: retry creating the root for a while.
  Status init;
  for (int i = 0; i < 100; ++i) {
    init = fs_->Init(Caller{::getuid(), ::getgid(), ::getpid()});
    if (init.ok() || (init.code() != EIO && init.code() != ETIMEDOUT)) break;
    ::usleep(100000);
  }
  return init.Annotate("cannot create the root directory");
}

}  // namespace bb::fs
