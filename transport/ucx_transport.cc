// The UCX implementation of Transport.
//
// Threads: every UCX object (context, worker, listener, endpoints) is used by one thread at a
// time, the one holding worker_mu_: the progress thread, or a caller that drives the worker
// while its own reply is due (DriveCall). Other threads hand closures over through a queue
// (Submit), which the driving thread runs; a progress thread asleep in poll is woken with
// ucp_worker_signal. After its last event the progress thread keeps polling for
// options.poll_spin before it sleeps, so that back-to-back messages find it awake. Handler
// threads run the server's Handler and hand the reply back the same way; the ops of
// options.run_inline are answered by the driving thread at once.
//
// A call is finished for its caller only when its outcome is known *and* UCX no longer touches
// the caller's buffers (the send of bulk_out completed, a rendezvous into bulk_in completed or
// was cancelled). On a deadline, a send still in flight closes the peer's endpoint by force,
// which completes the send; the next call reconnects.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/base/buffer_pool.h"
#include "transport/transport.h"
#include "transport/wire.h"

namespace bb::transport {
namespace {

constexpr unsigned kAmRequest = 1;
constexpr unsigned kAmReply = 2;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status UcsError(ucs_status_t s, const std::string& what) {
  return Status(EIO, what + ": " + ucs_status_string(s));
}

class UcxTransport;

struct PendingCall {
  UcxTransport* owner = nullptr;
  uint64_t id = 0;
  NodeId peer = 0;
  int64_t deadline_ns = 0;
  std::string frame;  // AM header; UCX reads it until the send completes
  std::string data;   // payload + bulk_out, when the payload is too long for the header
  std::span<const char> bulk_out;
  std::span<char> bulk_in;
  // Progress thread only.
  bool decided = false;
  bool send_inflight = false;
  void* recv_req = nullptr;  // rendezvous receive into bulk_in, while in flight
  uint32_t reply_prefix = 0;  // payload bytes leading the reply's data
  std::string scratch;        // rendezvous target when the reply's data starts with payload
  ucp_ep_h ep = nullptr;
  // Handed to the caller.
  std::mutex mu;  // guards the three fields below
  std::condition_variable cv;
  std::atomic<bool> finished{false};  // set under mu (for cv); a driving caller polls it
  Status status;
  CallResult result;
};
using CallRef = std::shared_ptr<PendingCall>;

// A request received by the server, on its way to a handler thread.
struct Job {
  ucp_ep_h ep;
  uint64_t id;
  uint16_t op;
  std::string payload;
  // The data part, from the transport's pool and left uninitialised until UCX (or the copy
  // of an eager message) fills it: zeroing half a megabyte per chunk first costs as much as a
  // copy, and a freshly mapped one costs a page fault per page.
  BufferPool::Buffer bulk_mem;
  size_t bulk_size = 0;
  size_t bulk_offset = 0;  // past a payload that travelled in front of the data
  uint32_t prefix = 0;     // payload bytes still at the front of the data

  void AllocBulk(BufferPool& pool, size_t n) {
    bulk_mem = pool.Get(n);
    bulk_size = n;
    bulk_offset = 0;
  }
  std::string_view bulk() const { return {bulk_mem.get() + bulk_offset, bulk_size - bulk_offset}; }

  // Moves a payload that travelled in front of the data to where it belongs.
  void SplitPrefix() {
    if (prefix == 0) return;
    payload.assign(bulk_mem.get(), prefix);
    bulk_offset = prefix;
    prefix = 0;
  }
};

// A reply on its way out; freed when its send completes.
struct OutReply {
  std::string frame;
  std::string bulk;
};

class UcxTransport final : public Transport {
 public:
  UcxTransport(TransportOptions options, Handler handler)
      : options_(std::move(options)), handler_(std::move(handler)) {}

  ~UcxTransport() override { Shutdown(); }

  Status Start() {
    if (options_.max_large_in_flight == 0) {
      return Status(EINVAL, "max_large_in_flight must be at least 1 (no large call could start)");
    }
    // A restarted daemon must be able to listen on its port again at once (the old
    // connections' sockets may linger in TIME_WAIT). A user's own setting wins.
    ::setenv("UCX_TCP_CM_REUSEADDR", "y", /*overwrite=*/0);
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    ucp_config_t* config = nullptr;
    ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
    if (s != UCS_OK) return UcsError(s, "ucp_config_read");
    s = ucp_init(&params, config, &context_);
    ucp_config_release(config);
    if (s != UCS_OK) return UcsError(s, "ucp_init");
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    s = ucp_worker_create(context_, &wp, &worker_);
    if (s != UCS_OK) return UcsError(s, "ucp_worker_create");
    s = ucp_worker_get_efd(worker_, &efd_);
    if (s != UCS_OK) return UcsError(s, "ucp_worker_get_efd");
    BB_RETURN_IF_ERROR(SetAmHandler(kAmRequest, &UcxTransport::OnRequest));
    BB_RETURN_IF_ERROR(SetAmHandler(kAmReply, &UcxTransport::OnReply));
    if (!options_.listen_host.empty()) BB_RETURN_IF_ERROR(Listen());
    for (size_t i = 0; i < options_.handler_threads && handler_; ++i) {
      handlers_.emplace_back([this] { HandlerLoop(); });
    }
    progress_ = std::thread([this] { ProgressLoop(); });
    return Status::Ok();
  }

  void SetPeer(NodeId id, const std::string& host, uint16_t port) override {
    Submit([this, id, host, port] {
      Peer& p = peers_[id];
      if (p.host != host || p.port != port) {
        p.host = host;
        p.port = port;
        FailPeer(id, Status(EIO, "peer " + std::to_string(id) + " moved"));
      }
    });
  }

  uint16_t port() const override { return bound_port_; }

  void SetSelf(NodeId id) override { self_id_.store(id, std::memory_order_relaxed); }

  Result<CallResult> Call(NodeId peer, uint16_t op, std::string_view payload,
                          std::span<const char> bulk_out, std::span<char> bulk_in,
                          std::chrono::milliseconds deadline) override {
    if (deadline.count() <= 0) deadline = options_.deadline;
    // Large transfers are admitted options_.max_large_in_flight at a time: enough to keep
    // several links busy, few enough that each one's buffers stay bounded.
    BulkSlot slot(this, bulk_out.size() + bulk_in.size() >= kLargeBulk);
    auto call = std::make_shared<PendingCall>();
    call->owner = this;
    call->id = next_id_.fetch_add(1);
    call->peer = peer;
    call->deadline_ns = NowNs() + std::chrono::duration_cast<std::chrono::nanoseconds>(deadline).count();
    call->frame = EncodeFrame(Kind::kRequest, op, call->id, 0, payload, self_id_.load(std::memory_order_relaxed));
    call->bulk_out = bulk_out;
    if (PayloadGoesInData(payload)) {
      call->data.assign(payload);
      call->data.append(bulk_out.data(), bulk_out.size());
      call->bulk_out = {call->data.data(), call->data.size()};
    }
    call->bulk_in = bulk_in;
    // A small call drives the worker itself; a large one would only hold it for the time its
    // data takes, while other callers' messages wait.
    bool small = bulk_out.size() + bulk_in.size() < kLargeBulk;
    if (spin_ns_ <= 0 || !small || !DriveCall(call)) {
      if (!Submit([this, call] { StartCall(call); })) {
        return Status(EIO, "transport is shutting down");
      }
    }
    std::unique_lock lock(call->mu);
    // The progress thread decides every call by its deadline; the margin covers a stalled one.
    auto limit = std::chrono::steady_clock::now() + deadline + std::chrono::seconds(5);
    bool finished = call->cv.wait_until(lock, limit, [&] { return call->finished.load(); });
    bool ok = finished && call->status.ok();
    CountCall(peer, ok, payload.size() + bulk_out.size(),
              ok ? call->result.payload.size() + call->result.bulk_size : 0);
    if (!finished) {
      return Status(ETIMEDOUT, "call to node " + std::to_string(peer) + " timed out (progress stalled)");
    }
    if (!call->status.ok()) return call->status;
    return call->result;
  }

  std::vector<PeerCounters> Counters() const override {
    std::lock_guard lock(counters_mu_);
    std::vector<PeerCounters> out;
    for (const auto& [peer, c] : counters_) out.push_back(c);
    return out;
  }

 private:
  static constexpr size_t kLargeBulk = 64 * 1024;
  static constexpr size_t kPoolBytes = 64 << 20;  // free receive buffers kept for reuse

  void CountCall(NodeId peer, bool ok, uint64_t sent, uint64_t received) {
    std::lock_guard lock(counters_mu_);
    PeerCounters& c = counters_[peer];
    c.peer = peer;
    c.calls_sent++;
    c.calls_failed += ok ? 0 : 1;
    c.bytes_sent += sent;
    c.bytes_received += received;
  }

  void CountRequest(uint32_t sender, uint64_t bytes) {
    if (sender == kNoSender) return;
    std::lock_guard lock(counters_mu_);
    PeerCounters& c = counters_[sender];
    c.peer = sender;
    c.requests_received++;
    c.request_bytes_received += bytes;
  }

  // Holds one of the max_large_in_flight slots for large transfers while it lives.
  class BulkSlot {
   public:
    BulkSlot(UcxTransport* t, bool large) : t_(large ? t : nullptr) {
      if (t_ == nullptr) return;
      std::unique_lock lock(t_->bulk_mu_);
      t_->bulk_cv_.wait(lock, [&] { return t_->bulk_in_flight_ < t_->options_.max_large_in_flight; });
      ++t_->bulk_in_flight_;
    }
    ~BulkSlot() {
      if (t_ == nullptr) return;
      {
        std::lock_guard lock(t_->bulk_mu_);
        --t_->bulk_in_flight_;
      }
      t_->bulk_cv_.notify_one();
    }

   private:
    UcxTransport* t_;
  };

  struct Peer {
    std::string host;
    uint16_t port = 0;
    ucp_ep_h ep = nullptr;
  };

  // ---- plumbing between threads ----

  bool Submit(std::function<void()> fn) {
    {
      std::lock_guard lock(submit_mu_);
      if (stopping_) return false;
      submissions_.push_back(std::move(fn));
    }
    // Whoever drives the worker (the progress thread while it spins, or a caller) picks the
    // work up; only a progress thread asleep in poll needs the signal. The two seq_cst flags
    // pair with the progress thread's: it sets sleeping_, then reads has_work_.
    has_work_.store(true);
    if (sleeping_.load()) {
      ucp_worker_signal(worker_);
    } else if (napping_.load()) {
      { std::lock_guard lock(nap_mu_); }  // the napper is in its wait, or will see has_work_
      nap_cv_.notify_one();
    }
    return true;
  }

  // Runs the closures handed over by other threads. The caller holds worker_mu_. True when
  // there were any.
  bool RunSubmissions() {
    if (!has_work_.exchange(false)) return false;
    std::vector<std::function<void()>> work;
    {
      std::lock_guard lock(submit_mu_);
      work.swap(submissions_);
    }
    for (auto& fn : work) fn();
    return !work.empty();
  }

  Status SetAmHandler(unsigned id, ucp_am_recv_callback_t cb) {
    ucp_am_handler_param_t p{};
    p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                   UCP_AM_HANDLER_PARAM_FIELD_ARG;
    p.id = id;
    p.cb = cb;
    p.arg = this;
    ucs_status_t s = ucp_worker_set_am_recv_handler(worker_, &p);
    return s == UCS_OK ? Status::Ok() : UcsError(s, "ucp_worker_set_am_recv_handler");
  }

  Status Listen() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(options_.listen_port);
    if (inet_pton(AF_INET, options_.listen_host.c_str(), &addr.sin_addr) != 1) {
      return Status(EINVAL, "listen address '" + options_.listen_host + "' is not an IPv4 address");
    }
    ucp_listener_params_t lp{};
    lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
    lp.sockaddr.addr = reinterpret_cast<const sockaddr*>(&addr);
    lp.sockaddr.addrlen = sizeof addr;
    lp.conn_handler.cb = &UcxTransport::OnConnect;
    lp.conn_handler.arg = this;
    ucs_status_t s = ucp_listener_create(worker_, &lp, &listener_);
    if (s != UCS_OK) {
      return UcsError(s, "listen on " + options_.listen_host + ":" + std::to_string(options_.listen_port));
    }
    ucp_listener_attr_t attr{};
    attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
    if (ucp_listener_query(listener_, &attr) == UCS_OK) {
      bound_port_ = ntohs(reinterpret_cast<sockaddr_in*>(&attr.sockaddr)->sin_port);
    }
    return Status::Ok();
  }

  // Drives the worker whenever no caller does: runs handed-over work and UCX progress, expires
  // calls, keeps polling for poll_spin after its last event, then sleeps in poll on the worker's
  // event fd until UCX or Submit wakes it. While callers drive the worker themselves it naps
  // instead: in poll, every event their calls consume would wake it for nothing.
  void ProgressLoop() {
    int64_t next_sweep = 0;
    int64_t last_event = 0;
    while (true) {
      std::unique_lock wl(worker_mu_, std::defer_lock);
      if (drivers_waiting_.load(std::memory_order_relaxed) > 0 || !wl.try_lock()) {
        Nap();  // a caller drives, or is about to
        continue;
      }
      bool busy = RunSubmissions();
      if (stopping_.load() && !busy && !has_work_.load()) break;
      while (ucp_worker_progress(worker_) != 0) busy = true;
      int64_t now = NowNs();
      if (now >= next_sweep) {
        ExpireCalls(now);
        next_sweep = now + 1'000'000;  // every millisecond
      }
      if (busy) last_event = now;
      if (busy || now - last_event < spin_ns_) {
        wl.unlock();
        // Yield rather than pause: a handler or caller thread waiting for this core runs now
        // (bench/README.md has what it did to the round trip's tail).
        std::this_thread::yield();
        continue;
      }
      if (pending_.empty() && now - last_drive_ns_.load(std::memory_order_relaxed) < 2 * kNapNs) {
        wl.unlock();
        Nap();
        continue;
      }
      sleeping_.store(true);
      if (has_work_.load() || stopping_.load()) {
        sleeping_.store(false);
        continue;
      }
      if (ucp_worker_arm(worker_) == UCS_OK) {
        int timeout_ms = pending_.empty() ? 100 : 1;
        wl.unlock();
        pollfd pfd{efd_, POLLIN, 0};
        ::poll(&pfd, 1, timeout_ms);
      }
      sleeping_.store(false);
    }
    std::lock_guard wl(worker_mu_);
    CloseAll();
  }

  static void Relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  // The progress thread's sleep while callers drive: up to kNapNs, or until a caller hands the
  // worker back with its call still open, or work is submitted.
  void Nap() {
    std::unique_lock lock(nap_mu_);
    napping_ = true;
    nap_cv_.wait_for(lock, std::chrono::nanoseconds(kNapNs), [&] { return handback_ || has_work_.load(); });
    handback_ = false;
    napping_ = false;
  }

  void HandBack() {
    {
      std::lock_guard lock(nap_mu_);
      handback_ = true;
      if (!napping_) return;
    }
    nap_cv_.notify_one();
  }

  // A caller drives the worker itself while it waits for its reply, for up to poll_spin: no
  // hand-off to the progress thread and back, which on a busy or virtualised host costs more
  // than the round trip. Returns false (the call not started) when another thread drives.
  bool DriveCall(const CallRef& call) {
    if (drivers_waiting_.fetch_add(1, std::memory_order_relaxed) > 0) {
      drivers_waiting_.fetch_sub(1, std::memory_order_relaxed);
      return false;  // another caller is about to drive: it will run this call's hand-over
    }
    // The progress thread backs off when it sees a waiting driver; its turn is short.
    int64_t start = NowNs();
    std::unique_lock wl(worker_mu_, std::try_to_lock);
    while (!wl.owns_lock() && NowNs() - start < kLockWaitNs) {
      Relax();
      wl.try_lock();
    }
    drivers_waiting_.fetch_sub(1, std::memory_order_relaxed);
    if (!wl.owns_lock() || stopping_.load()) return false;
    RunSubmissions();  // work handed over earlier goes first (a SetPeer, say)
    StartCall(call);
    int64_t now = NowNs();
    const int64_t until = now + spin_ns_;
    while (!call->finished.load(std::memory_order_acquire) && (now = NowNs()) < until) {
      if (ucp_worker_progress(worker_) == 0 && !RunSubmissions()) Relax();
    }
    last_drive_ns_.store(now, std::memory_order_relaxed);
    wl.unlock();
    if (!call->finished.load(std::memory_order_acquire)) {
      // The progress thread takes over: it naps, or sleeps in poll armed before this caller
      // consumed the events that would have woken it.
      HandBack();
      if (sleeping_.load()) ucp_worker_signal(worker_);
    }
    return true;
  }

  // ---- client side ----

  ucp_ep_h Connect(NodeId id, Status* error) {
    auto it = peers_.find(id);
    if (it == peers_.end()) {
      *error = Status(EHOSTUNREACH, "node " + std::to_string(id) + " has no known address");
      return nullptr;
    }
    Peer& p = it->second;
    if (p.ep != nullptr) return p.ep;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(p.port);
    if (inet_pton(AF_INET, p.host.c_str(), &addr.sin_addr) != 1) {
      *error = Status(EHOSTUNREACH, "node " + std::to_string(id) + " address '" + p.host + "' is not IPv4");
      return nullptr;
    }
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
                    UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
    ep.sockaddr.addr = reinterpret_cast<const sockaddr*>(&addr);
    ep.sockaddr.addrlen = sizeof addr;
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &UcxTransport::OnEpError;
    ep.err_handler.arg = this;
    ucs_status_t s = ucp_ep_create(worker_, &ep, &p.ep);
    if (s != UCS_OK) {
      p.ep = nullptr;
      *error = UcsError(s, "connect to node " + std::to_string(id) + " at " + p.host + ":" + std::to_string(p.port));
      return nullptr;
    }
    client_eps_[p.ep] = id;
    return p.ep;
  }

  void StartCall(const CallRef& call) {
    Status error;
    ucp_ep_h ep = Connect(call->peer, &error);
    if (ep == nullptr) return Decide(call, error, {});
    call->ep = ep;
    pending_[call->id] = call;
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = UCP_AM_SEND_FLAG_REPLY;
    rp.cb.send = &UcxTransport::OnCallSent;
    auto* holder = new CallRef(call);
    rp.user_data = holder;
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, kAmRequest, call->frame.data(), call->frame.size(),
                                           call->bulk_out.data(), call->bulk_out.size(), &rp);
    if (req == nullptr) {
      delete holder;
    } else if (UCS_PTR_IS_ERR(req)) {
      delete holder;
      Decide(call, UcsError(UCS_PTR_STATUS(req), "send to node " + std::to_string(call->peer)), {});
    } else {
      call->send_inflight = true;
    }
  }

  static void OnCallSent(void* request, ucs_status_t status, void* user_data) {
    auto* holder = static_cast<CallRef*>(user_data);
    CallRef call = *holder;
    delete holder;
    ucp_request_free(request);
    call->send_inflight = false;
    UcxTransport* self = call->owner;
    if (status != UCS_OK) self->Decide(call, UcsError(status, "send to node " + std::to_string(call->peer)), {});
    self->MaybeFinish(call);
  }

  static ucs_status_t OnReply(void* arg, const void* header, size_t header_length, void* data,
                              size_t length, const ucp_am_recv_param_t* param) {
    auto* self = static_cast<UcxTransport*>(arg);
    auto frame = DecodeFrame({static_cast<const char*>(header), header_length});
    if (!frame || frame->kind != Kind::kReply) {
      spdlog::warn("transport: dropped a malformed reply: {}", frame ? "wrong kind" : frame.error().message());
      return UCS_OK;
    }
    auto it = self->pending_.find(frame->id);
    if (it == self->pending_.end()) return UCS_OK;  // late reply of a call that timed out
    CallRef call = it->second;
    uint32_t prefix = frame->payload_in_data ? frame->payload_size : 0;
    if (length < prefix) {
      self->Decide(call, Status(EPROTO, "reply data shorter than its payload"), {});
      return UCS_OK;
    }
    CallResult result;
    result.status = frame->status;
    result.payload = std::string(frame->payload);
    result.bulk_size = length - prefix;
    if (result.bulk_size > call->bulk_in.size()) {
      self->Decide(call, Status(EMSGSIZE, "reply bulk of " + std::to_string(result.bulk_size) +
                                              " bytes does not fit a buffer of " +
                                              std::to_string(call->bulk_in.size())), {});
      return UCS_OK;
    }
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
      const char* bytes = static_cast<const char*>(data);
      if (prefix > 0) result.payload.assign(bytes, prefix);
      if (result.bulk_size > 0) std::memcpy(call->bulk_in.data(), bytes + prefix, result.bulk_size);
      self->Decide(call, Status::Ok(), std::move(result));
      return UCS_OK;
    }
    // Rendezvous: pull the data straight into the caller's buffer (through a scratch buffer
    // when a payload leads it).
    call->result = std::move(result);
    call->reply_prefix = prefix;
    char* target = call->bulk_in.data();
    if (prefix > 0) {
      call->scratch.resize(length);
      target = call->scratch.data();
    }
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.recv_am = &UcxTransport::OnReplyData;
    auto* holder = new CallRef(call);
    rp.user_data = holder;
    ucs_status_ptr_t req = ucp_am_recv_data_nbx(self->worker_, data, target, length, &rp);
    if (req == nullptr) {
      delete holder;
      self->FinishReplyData(call);
    } else if (UCS_PTR_IS_ERR(req)) {
      delete holder;
      self->Decide(call, UcsError(UCS_PTR_STATUS(req), "receive reply data"), {});
    } else {
      call->recv_req = req;
    }
    return UCS_INPROGRESS;
  }

  // The rendezvous data of a reply has arrived: split off a leading payload, then decide.
  void FinishReplyData(const CallRef& call) {
    if (call->reply_prefix > 0) {
      call->result.payload = call->scratch.substr(0, call->reply_prefix);
      if (call->result.bulk_size > 0) {
        std::memcpy(call->bulk_in.data(), call->scratch.data() + call->reply_prefix, call->result.bulk_size);
      }
      call->scratch.clear();
    }
    Decide(call, Status::Ok(), std::move(call->result));
  }

  static void OnReplyData(void* request, ucs_status_t status, size_t, void* user_data) {
    auto* holder = static_cast<CallRef*>(user_data);
    CallRef call = *holder;
    delete holder;
    ucp_request_free(request);
    call->recv_req = nullptr;
    UcxTransport* self = call->owner;
    if (status == UCS_OK) {
      self->FinishReplyData(call);  // decides, which releases the caller
    } else {
      self->Decide(call, UcsError(status, "receive reply data"), {});
    }
  }

  // Records the outcome once; the caller is released when UCX is done with its buffers.
  void Decide(const CallRef& call, Status status, CallResult result) {
    if (!call->decided) {
      call->decided = true;
      call->status = std::move(status);
      call->result = std::move(result);
      pending_.erase(call->id);
    }
    MaybeFinish(call);
  }

  void MaybeFinish(const CallRef& call) {
    if (!call->decided || call->send_inflight || call->recv_req != nullptr) return;
    std::lock_guard lock(call->mu);
    if (call->finished.load(std::memory_order_relaxed)) return;
    call->finished.store(true, std::memory_order_release);
    call->cv.notify_all();
  }

  void ExpireCalls(int64_t now) {
    std::vector<CallRef> late;
    for (auto& [id, call] : pending_) {
      if (call->deadline_ns <= now) late.push_back(call);
    }
    for (const CallRef& call : late) {
      Decide(call, Status(ETIMEDOUT, "no reply from node " + std::to_string(call->peer) + " in time"), {});
      if (call->recv_req != nullptr) ucp_request_cancel(worker_, call->recv_req);
      if (call->send_inflight) {
        // The connection is stuck: close it so the send completes and the buffer is free.
        FailPeer(call->peer, Status(ETIMEDOUT, "connection to node " + std::to_string(call->peer) + " stalled"));
      }
    }
  }

  static void OnEpError(void* arg, ucp_ep_h ep, ucs_status_t status) {
    auto* self = static_cast<UcxTransport*>(arg);
    auto it = self->client_eps_.find(ep);
    if (it != self->client_eps_.end()) {
      NodeId id = it->second;
      spdlog::warn("transport: connection to node {} failed: {}", id, ucs_status_string(status));
      self->FailPeer(id, UcsError(status, "connection to node " + std::to_string(id) + " failed"));
      return;
    }
    if (self->server_eps_.erase(ep) > 0) {
      spdlog::debug("transport: a client connection closed: {}", ucs_status_string(status));
      self->CloseEp(ep);
    }
  }

  // Fails every pending call to the peer and drops its endpoint; the next call reconnects.
  void FailPeer(NodeId id, const Status& why) {
    std::vector<CallRef> calls;
    for (auto& [cid, call] : pending_) {
      if (call->peer == id) calls.push_back(call);
    }
    for (const CallRef& call : calls) {
      Decide(call, why, {});
      if (call->recv_req != nullptr) ucp_request_cancel(worker_, call->recv_req);
    }
    auto it = peers_.find(id);
    if (it != peers_.end() && it->second.ep != nullptr) {
      ucp_ep_h ep = it->second.ep;
      it->second.ep = nullptr;
      client_eps_.erase(ep);
      CloseEp(ep);
    }
  }

  void CloseEp(ucp_ep_h ep) {
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &rp);
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) closing_.push_back(req);
  }

  // ---- server side ----

  static void OnConnect(ucp_conn_request_h conn, void* arg) {
    auto* self = static_cast<UcxTransport*>(arg);
    ucp_ep_params_t ep{};
    ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER |
                    UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
    ep.conn_request = conn;
    ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    ep.err_handler.cb = &UcxTransport::OnEpError;
    ep.err_handler.arg = self;
    ucp_ep_h handle = nullptr;
    ucs_status_t s = ucp_ep_create(self->worker_, &ep, &handle);
    if (s != UCS_OK) {
      spdlog::warn("transport: refused a connection: {}", ucs_status_string(s));
      return;
    }
    self->server_eps_.insert(handle);
  }

  static ucs_status_t OnRequest(void* arg, const void* header, size_t header_length, void* data,
                                size_t length, const ucp_am_recv_param_t* param) {
    auto* self = static_cast<UcxTransport*>(arg);
    auto frame = DecodeFrame({static_cast<const char*>(header), header_length});
    if (!frame || frame->kind != Kind::kRequest || !(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
      spdlog::warn("transport: dropped a malformed request: {}",
                   frame ? "wrong kind or no reply endpoint" : frame.error().message());
      return UCS_OK;
    }
    self->CountRequest(frame->sender, frame->payload.size() + length);
    auto job = std::make_unique<Job>();
    job->ep = param->reply_ep;
    job->id = frame->id;
    job->op = frame->op;
    job->payload = std::string(frame->payload);
    job->prefix = frame->payload_in_data ? frame->payload_size : 0;
    if (length < job->prefix) {
      self->SendReply(job->ep, job->id, job->op, Response{EPROTO, "request data shorter than its payload", {}});
      return UCS_OK;
    }
    if (!self->handler_) {
      self->SendReply(job->ep, job->id, job->op, Response{EOPNOTSUPP, {}, {}});
      return UCS_OK;
    }
    if (length > self->options_.max_bulk) {
      self->SendReply(job->ep, job->id, job->op,
                      Response{EMSGSIZE, "bulk part of " + std::to_string(length) + " bytes is too large", {}});
      return UCS_OK;
    }
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
      job->AllocBulk(self->bulk_pool_, length);
      if (length > 0) std::memcpy(job->bulk_mem.get(), data, length);
      job->SplitPrefix();
      self->Dispatch(std::move(job));
      return UCS_OK;
    }
    job->AllocBulk(self->bulk_pool_, length);
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.recv_am = &UcxTransport::OnRequestData;
    Job* raw = job.release();
    raw->ep = param->reply_ep;
    rp.user_data = new std::pair<UcxTransport*, Job*>(self, raw);
    ucs_status_ptr_t req = ucp_am_recv_data_nbx(self->worker_, data, raw->bulk_mem.get(), length, &rp);
    if (req == nullptr || UCS_PTR_IS_ERR(req)) {
      delete static_cast<std::pair<UcxTransport*, Job*>*>(rp.user_data);
      std::unique_ptr<Job> owned(raw);
      owned->SplitPrefix();
      if (req == nullptr) self->Dispatch(std::move(owned));
    }
    return UCS_INPROGRESS;
  }

  static void OnRequestData(void* request, ucs_status_t status, size_t, void* user_data) {
    auto* ctx = static_cast<std::pair<UcxTransport*, Job*>*>(user_data);
    UcxTransport* self = ctx->first;
    std::unique_ptr<Job> job(ctx->second);
    delete ctx;
    ucp_request_free(request);
    job->SplitPrefix();
    if (status == UCS_OK) self->Dispatch(std::move(job));
  }

  // On the progress thread (called from UCX's receive callbacks).
  void Dispatch(std::unique_ptr<Job> job) {
    if (options_.run_inline && options_.run_inline(job->op)) {
      Response r = handler_(job->op, job->payload, job->bulk());
      if (server_eps_.count(job->ep)) SendReply(job->ep, job->id, job->op, std::move(r));
      return;
    }
    {
      std::lock_guard lock(jobs_mu_);
      jobs_.push_back(std::move(job));
    }
    jobs_cv_.notify_one();
  }

  void HandlerLoop() {
    while (true) {
      std::unique_ptr<Job> job;
      {
        std::unique_lock lock(jobs_mu_);
        jobs_cv_.wait(lock, [&] { return jobs_stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      Response r = handler_(job->op, job->payload, job->bulk());
      auto* shared = new Response(std::move(r));
      Job* raw = job.release();
      Submit([this, raw, shared] {
        std::unique_ptr<Job> j(raw);
        std::unique_ptr<Response> resp(shared);
        if (server_eps_.count(j->ep)) SendReply(j->ep, j->id, j->op, std::move(*resp));
      });
    }
  }

  void SendReply(ucp_ep_h ep, uint64_t id, uint16_t op, Response r) {
    auto* out = new OutReply{EncodeFrame(Kind::kReply, op, id, r.status, r.payload), std::move(r.bulk)};
    if (PayloadGoesInData(r.payload)) out->bulk.insert(0, r.payload);
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    rp.cb.send = [](void* request, ucs_status_t, void* user_data) {
      delete static_cast<OutReply*>(user_data);
      ucp_request_free(request);
    };
    rp.user_data = out;
    ucs_status_ptr_t req = ucp_am_send_nbx(ep, kAmReply, out->frame.data(), out->frame.size(),
                                           out->bulk.data(), out->bulk.size(), &rp);
    if (req == nullptr || UCS_PTR_IS_ERR(req)) delete out;
  }

  // ---- shutdown ----

  void CloseAll() {
    for (auto& [id, call] : std::map<uint64_t, CallRef>(pending_.begin(), pending_.end())) {
      Decide(call, Status(EIO, "transport is shutting down"), {});
    }
    for (auto& [id, peer] : peers_) {
      if (peer.ep != nullptr) CloseEp(peer.ep);
      peer.ep = nullptr;
    }
    for (ucp_ep_h ep : server_eps_) CloseEp(ep);
    server_eps_.clear();
    client_eps_.clear();
    // Let forced closes and the sends they cancel complete, within a bound.
    int64_t until = NowNs() + 2'000'000'000;
    while (!closing_.empty() && NowNs() < until) {
      ucp_worker_progress(worker_);
      std::erase_if(closing_, [](void* req) {
        if (ucp_request_check_status(req) == UCS_INPROGRESS) return false;
        ucp_request_free(req);
        return true;
      });
    }
    if (listener_ != nullptr) ucp_listener_destroy(listener_);
    listener_ = nullptr;
  }

  void Shutdown() {
    {
      std::lock_guard lock(jobs_mu_);
      jobs_stopping_ = true;
    }
    jobs_cv_.notify_all();
    for (auto& t : handlers_) t.join();
    handlers_.clear();
    if (progress_.joinable()) {
      {
        std::lock_guard lock(submit_mu_);
        stopping_ = true;
      }
      ucp_worker_signal(worker_);
      progress_.join();
    }
    if (listener_ != nullptr) ucp_listener_destroy(listener_);  // Start failed before the loop
    listener_ = nullptr;
    if (worker_ != nullptr) ucp_worker_destroy(worker_);
    if (context_ != nullptr) ucp_cleanup(context_);
    worker_ = nullptr;
    context_ = nullptr;
  }

  const TransportOptions options_;
  const Handler handler_;
  const int64_t spin_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.poll_spin).count();
  BufferPool bulk_pool_{kPoolBytes};  // before every Job, which returns its buffer here
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_listener_h listener_ = nullptr;
  int efd_ = -1;
  uint16_t bound_port_ = 0;
  std::atomic<uint64_t> next_id_{1};
  std::atomic<uint32_t> self_id_{kNoSender};
  mutable std::mutex counters_mu_;  // guards counters_
  std::map<NodeId, PeerCounters> counters_;

  std::mutex bulk_mu_;  // guards bulk_in_flight_
  std::condition_variable bulk_cv_;
  size_t bulk_in_flight_ = 0;

  std::mutex submit_mu_;  // guards submissions_
  std::vector<std::function<void()>> submissions_;
  std::atomic<bool> stopping_{false};  // set under submit_mu_, so no work is queued after it
  std::atomic<bool> has_work_{false};       // submissions_ may be non-empty
  std::atomic<bool> sleeping_{false};       // the progress thread is (about to be) in poll
  std::atomic<int> drivers_waiting_{0};     // callers waiting to drive the worker
  std::atomic<int64_t> last_drive_ns_{0};   // when a caller last stopped driving
  // The progress thread's nap while callers drive. Shorter naps wake it more often, and on a
  // small host each wake-up takes a driving caller's core (bench/README.md compares 0.1 ms and
  // 1 ms). A request from another node that comes between two drives waits for the next
  // driver or the end of the nap.
  static constexpr int64_t kNapNs = 1'000'000;
  static constexpr int64_t kLockWaitNs = 5'000;  // a driver's wait for the progress thread's turn
  std::mutex nap_mu_;  // guards handback_, and napping_'s changes
  std::condition_variable nap_cv_;
  std::atomic<bool> napping_{false};  // set under nap_mu_; Submit reads it without
  bool handback_ = false;

  // Held by whichever thread drives UCX: the progress thread, or a caller driving its own call
  // (DriveCall). Everything below is touched only by that thread.
  std::mutex worker_mu_;

  std::map<NodeId, Peer> peers_;
  std::unordered_map<ucp_ep_h, NodeId> client_eps_;
  std::set<ucp_ep_h> server_eps_;
  std::unordered_map<uint64_t, CallRef> pending_;
  std::vector<void*> closing_;

  std::mutex jobs_mu_;  // guards jobs_ and jobs_stopping_
  std::condition_variable jobs_cv_;
  std::deque<std::unique_ptr<Job>> jobs_;
  bool jobs_stopping_ = false;
  std::vector<std::thread> handlers_;
  std::thread progress_;
};

}  // namespace

Result<std::unique_ptr<Transport>> StartUcxTransport(const TransportOptions& options,
                                                    Handler handler) {
  auto t = std::make_unique<UcxTransport>(options, std::move(handler));
  BB_RETURN_IF_ERROR(t->Start());
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace bb::transport
