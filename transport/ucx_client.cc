#include "transport/ucx_client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "transport/ucx_call.h"
#include "transport/wire.h"

namespace bb::transport::ucx {

void PeerStats::CountPushBack(NodeId peer) {
  std::lock_guard lock(mu_);
  PeerCounters& c = counters_[peer];
  c.peer = peer;
  c.calls_pushed_back++;
}

void PeerStats::CountExtension(NodeId peer) {
  std::lock_guard lock(mu_);
  PeerCounters& c = counters_[peer];
  c.peer = peer;
  c.calls_extended++;
}

void PeerStats::CountCall(NodeId peer, bool ok, uint64_t sent, uint64_t received, int64_t latency_ns) {
  double seconds = static_cast<double>(latency_ns) / 1e9;
  size_t bucket = std::lower_bound(kLatencyBounds.begin(), kLatencyBounds.end(), seconds) - kLatencyBounds.begin();
  std::lock_guard lock(mu_);
  PeerCounters& c = counters_[peer];
  c.latency[bucket]++;
  c.latency_seconds += seconds;
  c.peer = peer;
  c.calls_sent++;
  c.calls_failed += ok ? 0 : 1;
  c.bytes_sent += sent;
  c.bytes_received += received;
}

void PeerStats::CountRequest(uint32_t sender, uint64_t bytes) {
  if (sender == kNoSender) return;
  std::lock_guard lock(mu_);
  PeerCounters& c = counters_[sender];
  c.peer = sender;
  c.requests_received++;
  c.request_bytes_received += bytes;
}

std::vector<PeerCounters> PeerStats::Snapshot() const {
  std::lock_guard lock(mu_);
  std::vector<PeerCounters> out;
  for (const auto& [peer, c] : counters_) out.push_back(c);
  return out;
}

// Holds one of the max_large_in_flight slots for large transfers while it lives: enough to keep
// several links busy, few enough that each one's buffers stay bounded.
class Client::BulkSlot {
 public:
  BulkSlot(Client* c, bool large) : c_(large ? c : nullptr) {
    if (c_ == nullptr) return;
    std::unique_lock lock(c_->bulk_mu_);
    c_->bulk_cv_.wait(lock, [&] { return c_->bulk_in_flight_ < c_->options_.max_large_in_flight; });
    ++c_->bulk_in_flight_;
  }
  ~BulkSlot() {
    if (c_ == nullptr) return;
    {
      std::lock_guard lock(c_->bulk_mu_);
      --c_->bulk_in_flight_;
    }
    c_->bulk_cv_.notify_one();
  }

 private:
  Client* c_;
};

Client::Client(const TransportOptions& options, Worker* worker, PeerStats* stats)
    : options_(options), worker_(worker), stats_(stats), self_id_(auth::kNoId) {}

Status Client::Open() { return worker_->SetAmHandler(kAmReply, &Client::OnReply, this); }

void Client::SetPeer(NodeId id, const std::string& host, uint16_t port) {
  worker_->Submit([this, id, host, port] {
    Peer& p = peers_[id];
    if (p.host != host || p.port != port) {
      p.host = host;
      p.port = port;
      FailPeer(id, Status(EIO, "peer " + std::to_string(id) + " moved"));
      p.dial_generation++;  // a dial under way goes to the old address
      p.dialing = false;
      FailWaiting(&p, Status(EIO, "peer " + std::to_string(id) + " moved"));
    }
  });
}

bool Client::Retrying() const {
  for (const auto& [id, call] : pending_) {
    if (call->retry_at_ns != 0) return true;
  }
  return false;
}

Result<CallResult> Client::Call(NodeId peer, uint16_t op, std::string_view payload, std::span<const char> bulk_out,
                                std::span<char> bulk_in, std::chrono::milliseconds deadline) {
  if (deadline.count() <= 0) deadline = options_.deadline;
  const bool small = bulk_out.size() + bulk_in.size() < kLargeBulk;
  BulkSlot slot(this, !small);
  auto call = std::make_shared<PendingCall>();
  call->owner = this;
  call->id = next_id_.fetch_add(1);
  call->peer = peer;
  call->op = op;
  call->start_ns = NowNs();
  call->patience_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline).count();
  call->deadline_ns = call->start_ns + call->patience_ns;
  // Made here, on the caller's thread; the connection's session goes in when it is sent.
  call->frame = EncodeFrame(Kind::kRequest, op, call->id, 0, payload);
  call->bulk_out = bulk_out;
  if (PayloadGoesInData(payload)) {
    call->data.assign(payload);
    call->data.append(bulk_out.data(), bulk_out.size());
    call->bulk_out = {call->data.data(), call->data.size()};
  }
  call->bulk_in = bulk_in;
  // A small call drives the worker itself; a large one would only hold it for the time its data
  // takes, while other callers' messages wait.
  auto start = [this, call] { StartCall(call); };
  bool driven = small && (worker_->Drive(start, [&] { return call->finished.load(std::memory_order_acquire); }) ||
                          worker_->SendNow(start));
  if (!driven && !worker_->Submit(start)) return Status(EIO, "transport is shutting down");
  std::unique_lock lock(call->mu);
  // The driving thread decides every call by its deadline (which it moves on while the peer is
  // alive). Past the deadline and a margin, the driving thread itself may have been held up (a
  // handler it serves waited, or the whole host paused, and then every timer fires at once):
  // the caller waits on while it comes round, and gives up only once it has not for kStalledNs.
  bool finished = false;
  for (;;) {
    int64_t due = call->deadline_ns.load(std::memory_order_relaxed);
    int64_t wait_ns = std::max<int64_t>(due - NowNs() + 5'000'000'000, 1'000'000'000);
    auto limit = std::chrono::steady_clock::now() + std::chrono::nanoseconds(wait_ns);
    finished = call->cv.wait_until(lock, limit, [&] { return call->finished.load(); });
    if (finished) break;
    if (call->deadline_ns.load(std::memory_order_relaxed) != due) continue;
    if (worker_->SinceBeatNs(NowNs()) >= kStalledNs) break;
  }
  bool ok = finished && call->status.ok();
  stats_->CountCall(peer, ok, payload.size() + bulk_out.size(),
                    ok ? call->result.payload.size() + call->result.bulk_size : 0, NowNs() - call->start_ns);
  if (!finished) return Status(ETIMEDOUT, "call to node " + std::to_string(peer) + " timed out (progress stalled)");
  if (!call->status.ok()) return call->status;
  return call->result;
}

void Client::StartCall(const CallRef& call) {
  if (call->decided) return;  // decided while it waited to be sent (again)
  auto it = peers_.find(call->peer);
  if (it == peers_.end()) {
    return Decide(call, Status(EHOSTUNREACH, "node " + std::to_string(call->peer) + " has no known address"), {});
  }
  Peer& p = it->second;
  if (p.ep == nullptr) {
    pending_.erase(call->id);  // a call waits in one place: the connection's queue
    p.waiting.push_back(call);
    if (!p.dialing) Dial(call->peer, &p);
    return;
  }
  ucp_ep_h ep = p.ep;
  call->ep = ep;
  call->session = p.session;
  SetFrameSession(&call->frame, p.session);
  pending_[call->id] = call;
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  rp.flags = UCP_AM_SEND_FLAG_REPLY;
  rp.cb.send = &Client::OnCallSent;
  auto* holder = new CallRef(call);
  rp.user_data = holder;
  ucs_status_ptr_t req = ucp_am_send_nbx(ep, kAmRequest, call->frame.data(), call->frame.size(), call->bulk_out.data(),
                                         call->bulk_out.size(), &rp);
  if (req == nullptr) {
    delete holder;
  } else if (UCS_PTR_IS_ERR(req)) {
    delete holder;
    Decide(call, UcsError(UCS_PTR_STATUS(req), "send to node " + std::to_string(call->peer)), {});
  } else {
    call->send_inflight = true;
  }
}

void Client::OnCallSent(void* request, ucs_status_t status, void* user_data) {
  auto* holder = static_cast<CallRef*>(user_data);
  CallRef call = *holder;
  delete holder;
  ucp_request_free(request);
  call->send_inflight = false;
  Client* self = call->owner;
  if (status != UCS_OK) self->Decide(call, UcsError(status, "send to node " + std::to_string(call->peer)), {});
  self->MaybeFinish(call);
}

ucs_status_t Client::OnReply(void* arg, const void* header, size_t header_length, void* data, size_t length,
                             const ucp_am_recv_param_t* param) {
  auto* self = static_cast<Client*>(arg);
  auto frame = DecodeFrame({static_cast<const char*>(header), header_length});
  if (!frame || frame->kind != Kind::kReply) {
    spdlog::debug("transport: dropped a malformed reply: {}", frame ? "wrong kind" : frame.error().message());
    return UCS_OK;
  }
  auto it = self->pending_.find(frame->id);
  if (it == self->pending_.end()) return UCS_OK;  // late reply of a call that timed out
  CallRef call = it->second;
  if (frame->session != call->session) return UCS_OK;  // not from the node this call went to
  if (frame->session_unknown) {                        // not served: safe to send again, once, on a new connection
    self->Reconnect(call);
    return UCS_OK;
  }
  if (frame->busy) {  // not taken: send again after a wait that grows, 1 ms to 64 ms
    auto it = self->peers_.find(call->peer);
    if (it != self->peers_.end()) Replied(&it->second.live, NowNs());  // alive, and pushing back
    call->retry_at_ns = NowNs() + (int64_t{1'000'000} << std::min(call->pushed_back++, 6));
    self->stats_->CountPushBack(call->peer);
    return UCS_OK;
  }
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
    self->Decide(call,
                 Status(EMSGSIZE, "reply bulk of " + std::to_string(result.bulk_size) +
                                      " bytes does not fit a buffer of " + std::to_string(call->bulk_in.size())),
                 {});
    return UCS_OK;
  }
  if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
    const char* bytes = static_cast<const char*>(data);
    if (prefix > 0) result.payload.assign(bytes, prefix);
    if (result.bulk_size > 0) std::memcpy(call->bulk_in.data(), bytes + prefix, result.bulk_size);
    self->Decide(call, Status::Ok(), std::move(result));
    return UCS_OK;
  }
  call->result = std::move(result);
  self->ReceiveReplyData(call, data, length, prefix);
  return UCS_INPROGRESS;
}

// Rendezvous: pulls a reply's data straight into the caller's buffer (through a scratch buffer
// when a payload leads it).
void Client::ReceiveReplyData(const CallRef& call, void* data, size_t length, uint32_t prefix) {
  call->reply_prefix = prefix;
  char* target = call->bulk_in.data();
  if (prefix > 0) {
    call->scratch.resize(length);
    target = call->scratch.data();
  }
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = &Client::OnReplyData;
  auto* holder = new CallRef(call);
  rp.user_data = holder;
  ucs_status_ptr_t req = ucp_am_recv_data_nbx(worker_->handle(), data, target, length, &rp);
  if (req == nullptr) {
    delete holder;
    FinishReplyData(call);
  } else if (UCS_PTR_IS_ERR(req)) {
    delete holder;
    Decide(call, UcsError(UCS_PTR_STATUS(req), "receive reply data"), {});
  } else {
    call->recv_req = req;
  }
}

// The rendezvous data of a reply has arrived: split off a leading payload, then decide.
void Client::FinishReplyData(const CallRef& call) {
  if (call->reply_prefix > 0) {
    call->result.payload = call->scratch.substr(0, call->reply_prefix);
    if (call->result.bulk_size > 0) {
      std::memcpy(call->bulk_in.data(), call->scratch.data() + call->reply_prefix, call->result.bulk_size);
    }
    call->scratch.clear();
  }
  Decide(call, Status::Ok(), std::move(call->result));
}

void Client::OnReplyData(void* request, ucs_status_t status, size_t, void* user_data) {
  auto* holder = static_cast<CallRef*>(user_data);
  CallRef call = *holder;
  delete holder;
  ucp_request_free(request);
  call->recv_req = nullptr;
  Client* self = call->owner;
  if (status == UCS_OK) {
    self->FinishReplyData(call);  // decides, which releases the caller
  } else {
    self->Decide(call, UcsError(status, "receive reply data"), {});
  }
}

// Records the outcome once; the caller is released when UCX is done with its buffers.
void Client::Decide(const CallRef& call, Status status, CallResult result) {
  if (call->ping && !call->decided) OnPong(call, status, result);
  if (!call->ping && !call->decided && status.ok()) {
    auto it = peers_.find(call->peer);
    if (it != peers_.end()) Replied(&it->second.live, NowNs());
  }
  if (!call->decided) {
    call->decided = true;
    SetExtended(call, false);
    call->status = std::move(status);
    call->result = std::move(result);
    pending_.erase(call->id);
  }
  MaybeFinish(call);
}

void Client::SetExtended(const CallRef& call, bool extended) {
  if (call->extended == extended) return;
  call->extended = extended;
  extended_.fetch_add(extended ? 1 : -1, std::memory_order_relaxed);
}

void Client::MaybeFinish(const CallRef& call) {
  if (!call->decided || call->send_inflight || call->recv_req != nullptr) return;
  std::lock_guard lock(call->mu);
  if (call->finished.load(std::memory_order_relaxed)) return;
  call->finished.store(true, std::memory_order_release);
  call->cv.notify_all();
}

void Client::OnEpError(void* arg, ucp_ep_h ep, ucs_status_t status) {
  auto* self = static_cast<Client*>(arg);
  auto it = self->client_eps_.find(ep);
  if (it == self->client_eps_.end()) return;
  NodeId id = it->second;
  spdlog::warn("transport: connection to node {} failed: {}", id, ucs_status_string(status));
  self->FailPeer(id, UcsError(status, "connection to node " + std::to_string(id) + " failed"));
}

// Fails every pending call to the peer and drops its endpoint; the next call reconnects.
void Client::FailPeer(NodeId id, const Status& why) {
  std::vector<CallRef> calls;
  for (auto& [cid, call] : pending_) {
    if (call->peer == id) calls.push_back(call);
  }
  for (const CallRef& call : calls) {
    Decide(call, why, {});
    if (call->recv_req != nullptr) ucp_request_cancel(worker_->handle(), call->recv_req);
  }
  auto it = peers_.find(id);
  if (it != peers_.end() && it->second.ep != nullptr) {
    ucp_ep_h ep = it->second.ep;
    it->second.ep = nullptr;
    it->second.session.clear();
    client_eps_.erase(ep);
    worker_->CloseEp(ep);
  }
}

void Client::CloseAll() {
  for (auto& [id, call] : std::map<uint64_t, CallRef>(pending_.begin(), pending_.end())) {
    Decide(call, Status(EIO, "transport is shutting down"), {});
  }
  for (auto& [id, peer] : peers_) {
    if (peer.ep != nullptr) worker_->CloseEp(peer.ep);
    peer.ep = nullptr;
    peer.dial_generation++;
    FailWaiting(&peer, Status(EIO, "transport is shutting down"));
  }
  client_eps_.clear();
}

}  // namespace bb::transport::ucx
