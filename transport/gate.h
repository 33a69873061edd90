// Private to transport/: the gate, the only socket a transport listens on itself, and the
// sessions it hands out.
//
// UCX's own connection manager is never exposed: no ucp_listener exists. A caller connects to
// the gate over TCP, and the two run the cluster key's handshake (fs/base/auth.h). A caller
// that claims node id N must come from the address N serves on (what SetPeer was told), so a
// key holder cannot speak for another node; one that claims none is admitted only where
// TransportOptions::serve_tools says so. The admitted caller gets a session token (16 random
// bytes) and this side's UCX worker address, and connects to the worker by that address (the
// server answers on an endpoint of its own to the caller's worker address, from the hello). Every
// request then carries the token (transport/wire.h); the server serves only requests whose
// token it gave out, counted under the node it gave it to, and replies carry it back, so the
// caller accepts only replies from the node it authenticated. After set-up the data path
// costs one hash lookup per request.
//
// One live session per node id. A second claim of node N, while N has a session of another UCX
// worker, may be N restarted (its old process is gone) or a key holder on N's host posing as N.
// The gate tells them apart by asking N itself: a probe handshake to the address N serves on
// answers N's current worker address (and opens no session). The claim is N when that address
// is the claimant's, or when nothing answers there (the old process is gone with its gate);
// otherwise it is refused and logged, and N keeps its session. Meanwhile the claimant is told to
// ask again (the handshake's "not yet"), so the gate's thread never waits for the probe. A
// claim with N's own worker address (N connecting again after its endpoint failed) replaces the
// session at once.
//
// Bounds: at most kMaxHandshakes connections are in their handshake at once, kMaxPerHost of
// them from one address (more are closed at once, so one host cannot keep the others out),
// each has kHandshakeMs to finish, a hello is at most a few KiB; refusals are logged
// at most once per kLogEveryS per kind, with a count of the rest.
//
// Thread-safety: Sessions is safe from any thread. The gate's thread serves the socket;
// SetSelf/SetPeer may be called from any thread.
#pragma once

#include <atomic>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "fs/base/auth.h"
#include "fs/base/log_limit.h"
#include "transport/transport.h"

namespace bb::transport::ucx {

// The sessions the gate gave out: token -> the caller's node id and UCX worker address (where
// the server sends its replies).
class Sessions {
 public:
  struct Caller {
    NodeId id = auth::kNoId;
    std::string worker_address;
  };
  // A new session for `caller` (id auth::kNoId: a tool). A node's earlier session ends: it
  // connects again only after its old connection failed. Tools' sessions are kept up to
  // kMaxTools.
  std::string Open(Caller caller);
  std::optional<Caller> Find(std::string_view token) const;
  // The worker address of node `id`'s session, if it has one.
  std::optional<std::string> WorkerOf(NodeId id) const;
  bool Contains(std::string_view token) const;
  // Moves on whenever a session ends, so that copies kept elsewhere know to look again.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  static constexpr size_t kMaxTools = 1024;

 private:
  mutable std::mutex mu_;  // guards the three below
  std::unordered_map<std::string, Caller> by_token_;
  std::map<NodeId, std::string> by_node_;
  std::deque<std::string> tools_;
  std::atomic<uint64_t> generation_{0};
};

class Gate {
 public:
  Gate(const TransportOptions& options, Sessions* sessions);
  ~Gate();
  // Listens on options.listen_host:listen_port; callers are sent `worker_address`.
  Status Open(std::string worker_address);
  void Start();
  void Stop();
  uint16_t port() const { return port_; }
  void SetSelf(NodeId id) { self_.store(id); }
  NodeId self() const { return self_.load(); }
  void SetPeer(NodeId id, const std::string& host, uint16_t port);

  static constexpr size_t kMaxHandshakes = 128;
  // How long a probe of a claimed node may take, and how long its verdict stands.
  static constexpr int kProbeMs = 1000;
  static constexpr int64_t kVerdictMs = 10'000;
  static constexpr size_t kMaxPerHost = 16;
  static constexpr int kHandshakeMs = 3000;
  static constexpr int kLogEveryS = 10;

 private:
  struct Conn;
  void Loop();
  void AcceptAll(std::map<int, Conn>* conns);
  // What arrived, and what is to send; false when the connection is done with.
  bool Read(int fd, Conn* c);
  bool Write(int fd, Conn* c);
  std::string Admit(const auth::Peer& peer, const std::string& ip, const auth::Responder& r);
  // Whether a claim of node `id` by a worker at `claimant`, while `id` has a session of another
  // worker, is node `id` (see the file comment); starts a probe when none decided it lately.
  enum class Claim { kChecking, kNode, kImpostor };
  Claim CheckClaim(NodeId id, const std::string& claimant);
  void Refused(const std::string& kind, const std::string& message);

  const TransportOptions& options_;
  Sessions* const sessions_;
  std::string worker_address_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<NodeId> self_{auth::kNoId};
  std::atomic<bool> stop_{false};
  struct Address {
    std::string host;
    uint16_t port = 0;
  };
  std::mutex peers_mu_;  // guards peers_
  std::map<NodeId, Address> peers_;
  struct Check {
    std::string claimant;  // the worker address the verdict is about
    Claim verdict = Claim::kChecking;
    int64_t at_ms = 0;
  };
  std::mutex checks_mu_;  // guards checks_ and probes_
  std::map<NodeId, Check> checks_;
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> probes_;  // thread, done
  LogLimiter log_{int64_t{kLogEveryS} * 1'000'000'000};                           // the gate thread's refusals
  std::thread thread_;
};

// The calling side: connects to a gate at host:port (from `bind_host` when set, so that the
// connection comes from the address this node serves on), proves the key as node `self`, and
// checks the answer comes from node `expect` (any, when the gate has no id). Returns the
// session token and the worker address. `worker_address` is this side's, where replies go.
// Errors as auth::Dial's, ECONNREFUSED/EHOSTUNREACH when
// nothing listens there.
struct Admission {
  std::string session;
  std::string worker_address;
};
Result<Admission> DialGate(const std::string& host, uint16_t port, const std::string& bind_host, const auth::Key& key,
                           NodeId self, NodeId expect, const std::string& worker_address, int timeout_ms);

// What a probe's hello carries instead of a worker address: the gate answers with its worker
// address and opens no session.
inline constexpr std::string_view kProbe = "probe";
// Asks the gate at host:port (node `expect`) for its worker address, as node `self`. Errors as
// DialGate's.
Result<std::string> ProbeGate(const std::string& host, uint16_t port, const std::string& bind_host,
                              const auth::Key& key, NodeId self, NodeId expect, int timeout_ms);

}  // namespace bb::transport::ucx
