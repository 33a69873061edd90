// Private to transport/: the calling side of the UCX transport — peers, their endpoints, the
// calls waiting for replies and their deadlines.
//
// The first call to a peer connects: the gate's handshake (transport/gate.h) on a thread of its
// own, within the default deadline, while that peer's calls wait; then an endpoint to the
// worker address the gate gave. A call is finished for its caller only when its outcome is known *and* UCX no longer
// touches the caller's buffers (the send of bulk_out completed, a rendezvous into bulk_in completed or was cancelled).
// On a deadline, a send still in flight closes the peer's endpoint by force, which completes the send; the next call
// reconnects.
//
// Thread-safety: Call, SetPeer, SetSelf may be called from any thread; Expire, HasPending and
// CloseAll, and the UCX callbacks, run on the driving thread (ucx_worker.h has the lock order).
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/base/log_limit.h"
#include "transport/gate.h"
#include "transport/liveness.h"
#include "transport/transport.h"
#include "transport/ucx_worker.h"

namespace bb::transport::ucx {

inline constexpr unsigned kAmRequest = 1;
inline constexpr unsigned kAmReply = 2;

// Counters per peer, kept by both sides.
class PeerStats {
 public:
  void CountCall(NodeId peer, bool ok, uint64_t sent, uint64_t received, int64_t latency_ns);
  void CountRequest(uint32_t sender, uint64_t bytes);
  void CountExtension(NodeId peer);
  void CountPushBack(NodeId peer);
  std::vector<PeerCounters> Snapshot() const;

 private:
  mutable std::mutex mu_;  // guards counters_
  std::map<NodeId, PeerCounters> counters_;
};

struct PendingCall;
using CallRef = std::shared_ptr<PendingCall>;

class Client {
 public:
  // `worker` and `stats` must outlive the client.
  Client(const TransportOptions& options, Worker* worker, PeerStats* stats);
  // Sets the reply handler. REQUIRES: the worker is open and its progress not started.
  Status Open();

  ~Client();
  void SetSelf(NodeId id) { self_id_.store(id, std::memory_order_relaxed); }
  void SetPeer(NodeId id, const std::string& host, uint16_t port);
  // Transport::Call.
  Result<CallResult> Call(NodeId peer, uint16_t op, std::string_view payload, std::span<const char> bulk_out,
                          std::span<char> bulk_in, std::chrono::milliseconds deadline);

  // What this node's serving side is doing, added to the log line of a late call (driving
  // thread). Set before the progress thread starts.
  void SetDescribeServer(std::function<std::string(int64_t now_ns)> describe) {
    describe_server_ = std::move(describe);
  }

  // Whether calls of this side wait past their deadlines on peers judged alive: a ping's
  // answer tells it, so that whoever waits on this node waits on (transport/liveness.h). Any
  // thread.
  bool WaitingOnLive() const { return extended_.load(std::memory_order_relaxed) > 0; }

  // Driving thread only.
  void Expire(int64_t now_ns);
  // Calls waiting to be sent again (pushed back, or their session was unknown).
  bool Retrying() const;
  // Calls waiting for a reply, or for a connection.
  bool HasPending() const {
    if (!pending_.empty()) return true;
    for (const auto& [id, peer] : peers_) {
      if (!peer.waiting.empty()) return true;
    }
    return false;
  }
  void CloseAll();

 private:
  friend struct PendingCall;
  struct Peer {
    std::string host;
    uint16_t port = 0;
    ucp_ep_h ep = nullptr;
    std::string session;  // the gate's token for this connection, in every request
    Liveness live;        // what pings (kPingOp) have shown of it
    // While the gate's handshake runs (on a thread of its own): the calls that wait for it, and
    // which dial is current (an address change makes earlier ones stale).
    bool dialing = false;
    uint64_t dial_generation = 0;
    std::vector<CallRef> waiting;
  };
  class BulkSlot;

  // Connects to the peer's gate off the driving thread; OnDialed takes the result.
  void Dial(NodeId id, Peer* p);
  void OnDialed(NodeId id, uint64_t generation, Result<Admission> admission);
  void FailWaiting(Peer* p, const Status& why);
  // A call the peer did not serve because it does not know the connection's session (it
  // forgot it, or a newer connection of this node replaced it): sent again on a new one.
  void Reconnect(const CallRef& call);
  void StartCall(const CallRef& call);
  void Decide(const CallRef& call, Status status, CallResult result);
  void MaybeFinish(const CallRef& call);
  void ReceiveReplyData(const CallRef& call, void* data, size_t length, uint32_t prefix);
  void FinishReplyData(const CallRef& call);
  void FailPeer(NodeId id, const Status& why);
  // Liveness (driving thread, transport/liveness.h): a ping to `id` when one is due (or now,
  // with `force`, unless one is out); an answer's bookkeeping; the verdict on a late call's peer.
  void MaybePing(NodeId id, int64_t now, bool force = false);
  void OnPong(const CallRef& ping, const Status& status, const CallResult& result);
  Verdict Judge(NodeId id, int64_t now) const;
  int64_t LivenessNs() const;  // options.liveness, or the default deadline
  // Logs a call past its deadline (`verdict` on its peer), at most once per call and once per
  // peer and kLateLogNs, with what this node knows of the peer and of itself.
  void ReportLate(const CallRef& call, Verdict verdict, int64_t now);
  static constexpr int64_t kLateLogNs = 10'000'000'000;
  // Extensions a call gets while its peer only waits on other nodes (Verdict::kWaiting).
  static constexpr int kMaxWaitedOn = 12;
  // A sweep this long after the one before means this side did not run meanwhile (Paused).
  static constexpr int64_t kPauseNs = 2'000'000'000;
  // A caller gives up on its own driving thread ("progress stalled") only once it has not come
  // round for this long.
  static constexpr int64_t kStalledNs = 30'000'000'000;
  // Expire's steps (driving thread).
  void MovePastPause(int64_t now);
  void RetryAndExpireWaiting(int64_t now);
  void JudgeLate(const CallRef& call, int64_t now);
  // Marks a call as extended, or not (extended_).
  void SetExtended(const CallRef& call, bool extended);
  static void OnCallSent(void* request, ucs_status_t status, void* user_data);
  static ucs_status_t OnReply(void* arg, const void* header, size_t header_length, void* data, size_t length,
                              const ucp_am_recv_param_t* param);
  static void OnReplyData(void* request, ucs_status_t status, size_t, void* user_data);
  static void OnEpError(void* arg, ucp_ep_h ep, ucs_status_t status);

  static constexpr size_t kLargeBulk = 64 * 1024;

  const TransportOptions options_;
  Worker* const worker_;
  PeerStats* const stats_;
  std::atomic<uint64_t> next_id_{1};
  std::atomic<uint32_t> self_id_;
  std::atomic<int> extended_{0};  // calls whose peer was judged alive at their last deadline

  std::mutex dials_mu_;                                                          // guards dials_
  std::list<std::pair<std::thread, std::shared_ptr<std::atomic<bool>>>> dials_;  // thread, done
  std::mutex bulk_mu_;                                                           // guards bulk_in_flight_
  std::condition_variable bulk_cv_;
  size_t bulk_in_flight_ = 0;

  std::function<std::string(int64_t)> describe_server_;
  // Driving thread only.
  LogLimiter late_log_{kLateLogNs};
  int64_t last_sweep_ns_ = 0;
  std::map<NodeId, Peer> peers_;
  std::unordered_map<ucp_ep_h, NodeId> client_eps_;
  std::unordered_map<uint64_t, CallRef> pending_;
};

}  // namespace bb::transport::ucx
