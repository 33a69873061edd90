// Private to transport/: the serving side of the UCX transport — the gate (transport/gate.h),
// the endpoints its replies go out on, and the handler threads that run the Handler.
//
// A request is decoded on the driving thread and served only when its session is one the gate
// gave out (else the sender is told, once per interval in the log); its bulk part lands in a buffer of the server's
// pool (by rendezvous when large). Where TransportOptions::served_on says, it is answered there
// at once, or goes to a handler thread of its own, or to the handler threads; a handler
// thread's reply is handed back to the driving thread to send.
//
// Thread-safety: Open, StopHandlers and port() on the transport's owner thread; the UCX
// callbacks and CloseAll on the driving thread; handler threads only take jobs and Submit
// replies (ucx_worker.h has the lock order).
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/base/buffer_pool.h"
#include "fs/base/log_limit.h"
#include "transport/gate.h"
#include "transport/transport.h"
#include "transport/ucx_client.h"
#include "transport/ucx_worker.h"
#include "transport/wire.h"

namespace bb::transport::ucx {

struct Job;

class Server {
 public:
  // `worker` and `stats` must outlive the server; `handler` may be empty (client only).
  Server(const TransportOptions& options, Handler handler, Worker* worker, PeerStats* stats);
  ~Server();
  // Sets the request handler, opens the gate when options.listen_host is set, starts the
  // handler threads. REQUIRES: the worker is open and its progress not started.
  Status Open();
  uint16_t port() const { return gate_.port(); }
  void SetSelf(NodeId id) { gate_.SetSelf(id); }
  void SetPeer(NodeId id, const std::string& host, uint16_t port) { gate_.SetPeer(id, host, port); }
  // Closes the gate and joins the handler threads (jobs still queued are dropped).
  void StopHandlers();
  // Driving thread only: closes every caller's endpoint.
  void CloseAll();
  // What the handler threads serve now and what waits for them ("3 queued; serving op 4 for
  // node 2 for 5.1 s, idle, ..."), with each busy thread's state in the kernel, for the log when
  // a call is late. Any thread.
  std::string Describe(int64_t now_ns) const;
  // Logs Describe (at most once per kStuckLogNs) when a request has waited for a handler thread
  // for kStuckNs: the threads are held up, and the callers' deadlines are running out. One
  // thread at a time (the transport's watchdog).
  void Watch(int64_t now_ns);
  // Driving thread, from the sweep: closes the endpoints of sessions that ended long enough ago.
  void Sweep(int64_t now_ns);
  // Whether this node's own calls wait on live peers (Client::WaitingOnLive), for the answer to a
  // ping. Set before the progress thread starts.
  void SetWaitingOnLive(std::function<bool()> waiting) { waiting_on_live_ = std::move(waiting); }
  static constexpr int64_t kStuckNs = 2'000'000'000;
  static constexpr int64_t kStuckLogNs = 10'000'000'000;

 private:
  struct Caller {
    NodeId id;
    ucp_ep_h ep;
  };
  Caller* Resolve(std::string_view session);
  // Also says where the request is served, asked once.
  Caller* Admit(const Frame& frame, const ucp_am_recv_param_t* param, ServedOn* where);
  void Unknown(const ucp_am_recv_param_t* param, const Frame& frame);
  void Dispatch(std::unique_ptr<Job> job);
  struct Lane;
  // What one handler thread serves now (op 0: nothing), read by Describe from other threads.
  struct Serving {
    std::atomic<uint16_t> op{0};
    std::atomic<uint32_t> caller{0};
    std::atomic<int64_t> since_ns{0};
    std::atomic<pid_t> tid{0};
    void Start(uint16_t o, uint32_t c) {
      caller.store(c, std::memory_order_relaxed);
      since_ns.store(NowNs(), std::memory_order_relaxed);
      op.store(o, std::memory_order_release);
    }
    void Done() { op.store(0, std::memory_order_release); }
  };
  void HandlerLoop(Lane* lane, Serving* serving);
  void SendReply(ucp_ep_h ep, std::string_view session, uint64_t id, uint16_t op, Response r, uint32_t flags = 0);
  static ucs_status_t OnRequest(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                const ucp_am_recv_param_t* param);
  static void OnRequestData(void* request, ucs_status_t status, size_t, void* user_data);
  static void OnEpError(void* arg, ucp_ep_h ep, ucs_status_t status);

  static constexpr size_t kPoolBytes = 64 << 20;  // free receive buffers kept for reuse

  const TransportOptions options_;
  const Handler handler_;
  Worker* const worker_;
  PeerStats* const stats_;
  BufferPool bulk_pool_{kPoolBytes};  // before every Job, which returns its buffer here
  Sessions sessions_;
  Gate gate_;

  // Driving thread only.
  std::set<ucp_ep_h> server_eps_;
  // The endpoints of sessions that ended (another connection of their node took over), with when.
  // They stay open for kRetiredNs: the caller's next requests arrive on that connection, and
  // are answered "unknown session" on it, so the caller connects again at once. Closed by force
  // at once, the connection broke without the caller's side noticing, and its calls waited for
  // their deadlines.
  std::deque<std::pair<ucp_ep_h, int64_t>> retired_;
  static constexpr int64_t kRetiredNs = 30'000'000'000;
  static constexpr size_t kMaxRetired = 1024;
  std::unordered_map<std::string, Caller> callers_;  // by session
  uint64_t callers_generation_ = 0;                  // of sessions_, when callers_ was last pruned
  LogLimiter unknown_log_{10'000'000'000};           // requests without a session, one line per 10 s

  // Requests waiting for a handler thread: those ServedOn::kOwnThread in their own lane.
  struct Lane {
    std::condition_variable cv;
    std::deque<std::unique_ptr<Job>> jobs;
    std::atomic<size_t> queued{0};  // jobs.size(), read without the lock (push-back)
  };
  Lane& LaneFor(ServedOn where) { return where == ServedOn::kOwnThread ? own_lane_ : shared_lane_; }
  std::mutex jobs_mu_;  // guards the lanes' jobs and jobs_stopping_
  Lane shared_lane_, own_lane_;
  bool jobs_stopping_ = false;
  std::atomic<bool> handlers_stopping_{false};  // jobs_stopping_'s early sign, for Watch
  std::vector<std::thread> handlers_;
  std::vector<std::unique_ptr<Serving>> serving_;  // one per handler thread, made before them
  Serving inline_;                                 // what the driving thread serves itself
  std::atomic<uint64_t> completed_{0};             // requests served, for the answer to a ping
  // Driving thread only (a ping's answer): how often a ping found a handler at work in the kernel,
  // and this node waiting on live peers (transport/liveness.h).
  uint64_t working_seen_ = 0;
  uint64_t waiting_seen_ = 0;
  bool Working() const;
  std::function<bool()> waiting_on_live_;
  std::atomic<int64_t> completed_ns_{0};  // when the last one finished
  int64_t stuck_logged_ns_ = 0;           // driving thread only (Watch)
};

}  // namespace bb::transport::ucx
