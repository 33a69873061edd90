#include "transport/gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "fs/base/tcp.h"
#include "fs/base/thread_name.h"
#include "transport/ucx_worker.h"
#include "transport/wire.h"

namespace bb::transport::ucx {
namespace {

int64_t NowMs() { return NowNs() / 1'000'000; }

Result<sockaddr_in> Ipv4(const std::string& host, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) {
    return Status(EINVAL, "address '" + host + "' is not an IPv4 address");
  }
  return a;
}

}  // namespace

std::string Sessions::Open(Caller caller) {
  std::string token = auth::RandomBytes(kSessionBytes);
  std::lock_guard lock(mu_);
  bool ended = false;
  if (caller.id == auth::kNoId) {
    tools_.push_back(token);
    if (tools_.size() > kMaxTools) {
      by_token_.erase(tools_.front());
      tools_.pop_front();
      ended = true;
    }
  } else {
    auto [it, fresh] = by_node_.try_emplace(caller.id, token);
    if (!fresh) {
      by_token_.erase(it->second);
      it->second = token;
      ended = true;
    }
  }
  by_token_[token] = std::move(caller);
  if (ended) generation_.fetch_add(1, std::memory_order_release);
  return token;
}

std::optional<std::string> Sessions::WorkerOf(NodeId id) const {
  std::lock_guard lock(mu_);
  auto it = by_node_.find(id);
  if (it == by_node_.end()) return std::nullopt;
  return by_token_.at(it->second).worker_address;
}

bool Sessions::Contains(std::string_view token) const {
  std::lock_guard lock(mu_);
  return by_token_.count(std::string(token)) > 0;
}

std::optional<Sessions::Caller> Sessions::Find(std::string_view token) const {
  std::lock_guard lock(mu_);
  auto it = by_token_.find(std::string(token));
  if (it == by_token_.end()) return std::nullopt;
  return it->second;
}

// One caller in its handshake.
struct Gate::Conn {
  explicit Conn(const auth::Key& key) : responder(key) {}
  auth::Responder responder;
  std::string ip;
  std::string out;  // still to send
  bool closing = false;
  int64_t deadline_ms = 0;
};

Gate::Gate(const TransportOptions& options, Sessions* sessions) : options_(options), sessions_(sessions) {}

Gate::~Gate() {
  Stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status Gate::Open(std::string worker_address) {
  worker_address_ = std::move(worker_address);
  BB_ASSIGN_OR_RETURN(sockaddr_in addr, Ipv4(options_.listen_host, options_.listen_port));
  std::string where = options_.listen_host + ":" + std::to_string(options_.listen_port);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (listen_fd_ < 0 || wake_fd_ < 0) return Status(errno, std::string("gate socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 256) != 0) {
    return Status(errno, "listen on " + where + ": " + std::strerror(errno));
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  return Status::Ok();
}

void Gate::Start() {
  if (listen_fd_ >= 0) thread_ = NamedThread("bb-gate", [this] { Loop(); });
}

void Gate::Stop() {
  if (thread_.joinable()) {
    stop_ = true;
    uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  std::lock_guard lock(checks_mu_);
  for (auto& [thread, done] : probes_) thread.join();
  probes_.clear();
}

void Gate::SetPeer(NodeId id, const std::string& host, uint16_t port) {
  std::lock_guard lock(peers_mu_);
  peers_[id] = Address{host, port};
}

Gate::Claim Gate::CheckClaim(NodeId id, const std::string& claimant) {
  Address where;
  {
    std::lock_guard lock(peers_mu_);
    where = peers_.at(id);  // Admit checked it is known
  }
  std::lock_guard lock(checks_mu_);
  int64_t now = NowMs();
  auto [it, fresh] = checks_.try_emplace(id);
  Check& c = it->second;
  if (!fresh && c.claimant == claimant && (c.verdict == Claim::kChecking || now - c.at_ms < kVerdictMs)) {
    return c.verdict;
  }
  if (!fresh && c.verdict == Claim::kChecking) return Claim::kChecking;  // one probe at a time per node
  c = Check{claimant, Claim::kChecking, now};
  for (auto p = probes_.begin(); p != probes_.end();) {  // reap the probes that are over
    if (!p->second->load()) {
      ++p;
      continue;
    }
    p->first.join();
    p = probes_.erase(p);
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  NodeId self = self_.load();
  probes_.emplace_back(
      std::thread([this, id, claimant, where, self, done] {
        auto answer = ProbeGate(where.host, where.port, options_.listen_host, options_.key, self, id, kProbeMs);
        // A gate that is busy says "not yet": ask again at the claimant's next try.
        bool busy = !answer && answer.error().code() == EAGAIN;
        Claim verdict = busy ? Claim::kChecking : !answer || *answer == claimant ? Claim::kNode : Claim::kImpostor;
        {
          std::lock_guard lock(checks_mu_);
          auto it = checks_.find(id);
          if (it != checks_.end() && it->second.claimant == claimant) {
            if (busy) {
              checks_.erase(it);
            } else {
              it->second.verdict = verdict;
              it->second.at_ms = NowMs();
            }
          }
        }
        done->store(true);
      }),
      done);
  return Claim::kChecking;
}

void Gate::Refused(const std::string& kind, const std::string& message) {
  uint64_t held_back = 0;
  if (!log_.Admit(kind, NowNs(), &held_back)) return;
  if (held_back > 0) {
    spdlog::warn("transport: refused {} ({} more refused like it in the last {} s)", message, held_back, kLogEveryS);
  } else {
    spdlog::warn("transport: refused {}", message);
  }
}

std::string Gate::Admit(const auth::Peer& peer, const std::string& ip, const auth::Responder& r) {
  std::optional<std::string> host;  // where the claimed node serves, once SetPeer said
  {
    std::lock_guard lock(peers_mu_);
    if (auto it = peers_.find(peer.id); it != peers_.end()) host = it->second.host;
  }
  if (peer.id != auth::kNoId && peer.id == self_.load()) {
    Refused("self " + ip, "a connection from " + ip + " that claims to be this node");
    return auth::Responder::Refuse("node " + std::to_string(peer.id) + " is this node");
  }
  if (peer.id != auth::kNoId && !host && !options_.serve_tools) {
    // This node is still joining (it learns the cluster's addresses from the hosts file).
    return auth::Responder::Refuse("node " + std::to_string(peer.id) + " is not known here yet", /*later=*/true);
  }
  if (peer.id == auth::kNoId ? !options_.serve_tools : host != ip) {
    std::string why = peer.id == auth::kNoId ? "this node serves only the cluster's nodes"
                                             : "node " + std::to_string(peer.id) + " does not connect from " + ip;
    Refused("node " + ip, "a connection from " + ip + ": " + why);
    return auth::Responder::Refuse(why);
  }
  if (peer.payload.empty()) return auth::Responder::Refuse("a hello without a worker address");
  if (peer.id != auth::kNoId && peer.payload == kProbe) return r.Accept(self_.load(), worker_address_);
  if (peer.id != auth::kNoId) {
    auto current = sessions_->WorkerOf(peer.id);
    if (current && *current != peer.payload) {
      switch (CheckClaim(peer.id, peer.payload)) {
        case Claim::kChecking:
          return auth::Responder::Refuse("node " + std::to_string(peer.id) + "'s claim is being checked",
                                         /*later=*/true);
        case Claim::kImpostor: {
          std::string why = "node " + std::to_string(peer.id) + " is alive on another connection";
          Refused("claim " + ip,
                  "a connection from " + ip + " that claims node " + std::to_string(peer.id) + ": " + why);
          return auth::Responder::Refuse(why);
        }
        case Claim::kNode:
          spdlog::info("transport: node {} connected again from a new process (the earlier one is gone)", peer.id);
          break;
      }
    }
  }
  return r.Accept(self_.load(), sessions_->Open({peer.id, peer.payload}) + worker_address_);
}

void Gate::AcceptAll(std::map<int, Conn>* conns) {
  for (;;) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or out of descriptors: the next round tries again
    char ip[INET_ADDRSTRLEN] = "?";
    ::inet_ntop(AF_INET, &from.sin_addr, ip, sizeof ip);
    size_t from_host = 0;
    for (const auto& [other, c] : *conns) from_host += c.ip == ip;
    if (conns->size() >= kMaxHandshakes || from_host >= kMaxPerHost) {
      Refused("busy " + std::string(ip), std::string("a connection from ") + ip + ": " + std::to_string(from_host) +
                                             " handshakes from there and " + std::to_string(conns->size()) +
                                             " in all are under way");
      ::close(fd);
      continue;
    }
    Conn& c = conns->emplace(fd, Conn(options_.key)).first->second;
    c.ip = ip;
    c.out = c.responder.challenge();
    c.deadline_ms = NowMs() + kHandshakeMs;
  }
}

bool Gate::Read(int fd, Conn* c) {
  char buf[1024];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0 || c->closing) return false;  // gone, or talking past the end of its handshake
  auto got = c->responder.Take({buf, static_cast<size_t>(n)});
  if (!got) {
    bool wrong_key = got.error().code() == EACCES;
    Refused(wrong_key ? "key " + c->ip : "junk " + c->ip, "a connection from " + c->ip + ": " + got.error().message());
    c->out = auth::Responder::Refuse(wrong_key ? "the cluster key does not match" : "not a handshake");
    c->closing = true;
  } else if (got->has_value()) {
    c->out = Admit(**got, c->ip, c->responder);
    c->closing = true;
  }
  return true;
}

bool Gate::Write(int fd, Conn* c) {
  ssize_t n = ::send(fd, c->out.data(), c->out.size(), MSG_NOSIGNAL);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  c->out.erase(0, static_cast<size_t>(n));
  return !(c->out.empty() && c->closing);
}

void Gate::Loop() {
  std::map<int, Conn> conns;
  std::vector<pollfd> fds;
  while (!stop_.load()) {
    fds.assign({{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    // Without connections nothing is due: it sleeps until one arrives or Stop wakes it (an idle
    // daemon's threads do not wake by themselves).
    int64_t now = NowMs(), next = INT64_MAX;
    for (auto& [fd, c] : conns) {
      fds.push_back({fd, static_cast<short>(c.out.empty() ? POLLIN : POLLIN | POLLOUT), 0});
      next = std::min(next, c.deadline_ms);
    }
    int timeout_ms = conns.empty() ? -1 : static_cast<int>(std::clamp<int64_t>(next - now, 0, 1000));
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) {
      spdlog::error("transport: the gate's poll failed: {}", std::strerror(errno));
      break;
    }
    now = NowMs();
    for (size_t i = 2; i < fds.size(); ++i) {
      Conn& c = conns.at(fds[i].fd);
      bool keep = now < c.deadline_ms;
      if (keep && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) keep = Read(fds[i].fd, &c);
      if (keep && !c.out.empty()) keep = Write(fds[i].fd, &c);
      if (!keep) {
        if (now >= c.deadline_ms && !c.closing)
          Refused("slow " + c.ip, "a connection from " + c.ip + ": no hello in time");
        ::close(fds[i].fd);
        conns.erase(fds[i].fd);
      }
    }
    if (fds[1].revents & POLLIN) AcceptAll(&conns);
  }
  for (auto& [fd, c] : conns) ::close(fd);
}

Result<Admission> DialGate(const std::string& host, uint16_t port, const std::string& bind_host, const auth::Key& key,
                           NodeId self, NodeId expect, const std::string& worker_address, int timeout_ms) {
  std::string where = host + ":" + std::to_string(port);
  int64_t deadline = NowMs() + timeout_ms;
  BB_ASSIGN_OR_RETURN(int fd, ConnectTcp(host, port, bind_host, timeout_ms));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  int left = static_cast<int>(std::max<int64_t>(deadline - NowMs(), 1));
  auto dialed = auth::Dial(fd, key, self, worker_address, left);
  if (!dialed) return dialed.error().Annotate("node at " + where);
  auth::Peer& peer = *dialed;
  if (peer.payload.size() <= kSessionBytes) return Status(EPROTO, "node at " + where + ": its admission is too short");
  if (expect != auth::kNoId && peer.id != auth::kNoId && peer.id != expect) {
    return Status(EACCES, "node at " + where + " is node " + std::to_string(peer.id) + ", not node " +
                              std::to_string(expect) + " (check the hosts file)");
  }
  return Admission{peer.payload.substr(0, kSessionBytes), peer.payload.substr(kSessionBytes)};
}

Result<std::string> ProbeGate(const std::string& host, uint16_t port, const std::string& bind_host,
                              const auth::Key& key, NodeId self, NodeId expect, int timeout_ms) {
  std::string where = host + ":" + std::to_string(port);
  int64_t deadline = NowMs() + timeout_ms;
  BB_ASSIGN_OR_RETURN(int fd, ConnectTcp(host, port, bind_host, timeout_ms));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  int left = static_cast<int>(std::max<int64_t>(deadline - NowMs(), 1));
  auto dialed = auth::Dial(fd, key, self, kProbe, left);
  if (!dialed) return dialed.error().Annotate("node at " + where);
  if (dialed->id != expect) return Status(EACCES, "node at " + where + " is not node " + std::to_string(expect));
  return std::move(dialed->payload);
}

}  // namespace bb::transport::ucx
