#include "transport/ucx_server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>

#include "fs/base/thread_name.h"
#include "transport/wire.h"

namespace bb::transport::ucx {

// A request received by the server, on its way to a handler thread.
struct Job {
  ucp_ep_h ep;
  NodeId caller = auth::kNoId;
  std::string session;  // echoed in the reply
  uint64_t id;
  uint16_t op;
  std::string payload;
  // The data part, from the server's pool and left uninitialised until UCX (or the copy of an
  // eager message) fills it: zeroing half a megabyte per chunk first costs as much as a copy,
  // and a freshly mapped one costs a page fault per page.
  BufferPool::Buffer bulk_mem;
  size_t bulk_size = 0;
  size_t bulk_offset = 0;  // past a payload that travelled in front of the data
  uint32_t prefix = 0;     // payload bytes still at the front of the data
  ServedOn where = ServedOn::kHandlers;
  int64_t queued_ns = 0;  // when it was queued for a handler thread

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

namespace {

// A reply on its way out; freed when its send completes.
struct OutReply {
  std::string frame;
  std::string bulk;
};

}  // namespace

Server::Server(const TransportOptions& options, Handler handler, Worker* worker, PeerStats* stats)
    : options_(options), handler_(std::move(handler)), worker_(worker), stats_(stats), gate_(options_, &sessions_) {}

Server::~Server() { StopHandlers(); }

Status Server::Open() {
  BB_RETURN_IF_ERROR(worker_->SetAmHandler(kAmRequest, &Server::OnRequest, this));
  if (!options_.listen_host.empty()) {
    BB_RETURN_IF_ERROR(gate_.Open(worker_->address()));
    gate_.Start();
  }
  size_t threads = handler_ ? options_.handler_threads + (options_.served_on ? 1 : 0) : 0;
  for (size_t i = 0; i < threads; ++i) serving_.push_back(std::make_unique<Serving>());
  completed_ns_ = NowNs();
  for (size_t i = 0; i < options_.handler_threads && handler_; ++i) {
    handlers_.push_back(NamedThread("bb-handler", [this, i] { HandlerLoop(&shared_lane_, serving_[i].get()); }));
  }
  if (options_.served_on && handler_) {
    Serving* own = serving_.back().get();
    handlers_.push_back(NamedThread("bb-handler-own", [this, own] { HandlerLoop(&own_lane_, own); }));
  }
  return Status::Ok();
}

void Server::StopHandlers() {
  handlers_stopping_ = true;
  gate_.Stop();
  {
    std::lock_guard lock(jobs_mu_);
    jobs_stopping_ = true;
  }
  shared_lane_.cv.notify_all();
  own_lane_.cv.notify_all();
  for (auto& t : handlers_) t.join();
  handlers_.clear();
}

void Server::CloseAll() {
  for (ucp_ep_h ep : server_eps_) worker_->CloseEp(ep);
  server_eps_.clear();
  for (const auto& [ep, since] : retired_) worker_->CloseEp(ep);
  retired_.clear();
  callers_.clear();
}

// The caller of a session, and the endpoint its replies go out on (made at its first request).
// nullptr for a session the gate never gave out, or that ended.
Server::Caller* Server::Resolve(std::string_view session) {
  if (uint64_t g = sessions_.generation(); g != callers_generation_) {
    for (auto it = callers_.begin(); it != callers_.end();) {
      bool live = sessions_.Contains(it->first);
      if (!live && server_eps_.erase(it->second.ep) > 0) retired_.push_back({it->second.ep, NowNs()});
      it = live ? std::next(it) : callers_.erase(it);
    }
    callers_generation_ = g;
  }
  auto it = callers_.find(std::string(session));
  if (it != callers_.end()) return &it->second;
  auto caller = sessions_.Find(session);
  if (!caller) return nullptr;
  auto ep = worker_->Connect(caller->worker_address, &Server::OnEpError, this);
  if (!ep) {
    spdlog::warn("transport: cannot answer node {}: {}", caller->id, ep.error().message());
    return nullptr;
  }
  server_eps_.insert(*ep);
  return &callers_.emplace(std::string(session), Caller{caller->id, *ep}).first->second;
}

void Server::OnEpError(void* arg, ucp_ep_h ep, ucs_status_t status) {
  auto* self = static_cast<Server*>(arg);
  if (auto r =
          std::find_if(self->retired_.begin(), self->retired_.end(), [ep](const auto& e) { return e.first == ep; });
      r != self->retired_.end()) {
    self->retired_.erase(r);
    self->worker_->CloseEp(ep);
    return;
  }
  if (self->server_eps_.erase(ep) == 0) return;
  spdlog::debug("transport: a caller's connection closed: {}", ucs_status_string(status));
  for (auto it = self->callers_.begin(); it != self->callers_.end();) {
    it = it->second.ep == ep ? self->callers_.erase(it) : std::next(it);
  }
  self->worker_->CloseEp(ep);
}

// The caller of a well-formed request that is to be queued, or nullptr when it is answered
// already: junk or an unknown session (Unknown), a ping, or push-back from a full queue.
Server::Caller* Server::Admit(const Frame& frame, const ucp_am_recv_param_t* param, ServedOn* where) {
  Caller* caller = frame.kind == Kind::kRequest ? Resolve(frame.session) : nullptr;
  if (caller == nullptr) {
    Unknown(param, frame);
    return nullptr;
  }
  if (frame.op == kPingOp) {  // answered here, ahead of the queue: this side is alive
    // What it did: requests finished, and handlers found at work in the kernel (a node whose
    // disk writes are throttled finishes nothing for a while, and is busy, not stuck); and
    // whether it waits on live nodes itself (transport/liveness.h).
    if (Working()) working_seen_++;
    if (waiting_on_live_ && waiting_on_live_()) waiting_seen_++;
    SendReply(caller->ep, frame.session, frame.id, kPingOp,
              Response{0, Writer().U64(completed_ + working_seen_).U64(waiting_seen_).Take(), {}});
    return nullptr;
  }
  *where = options_.served_on ? options_.served_on(frame.op) : ServedOn::kHandlers;
  if (*where == ServedOn::kDrivingThread) return caller;
  // Each lane is bounded on its own: the own-thread ops are the ones the full shared lane's
  // handlers may be waiting for.
  if (LaneFor(*where).queued.load(std::memory_order_relaxed) >= options_.max_queued) {
    // Push back before the data moves: the caller sends it again shortly.
    SendReply(caller->ep, frame.session, frame.id, frame.op, Response{EBUSY, {}, {}}, kServerBusy);
    return nullptr;
  }
  return caller;
}

// Junk from a peer that never passed the gate, at most one line per interval.
void Server::Unknown(const ucp_am_recv_param_t* param, const Frame& frame) {
  if (uint64_t held_back = 0; unknown_log_.Admit("no session", NowNs(), &held_back)) {
    spdlog::warn("transport: refused a request without a session ({} more since the last such warning)", held_back);
  }
  // Tell a caller whose session this side forgot (it then connects again); the answer goes
  // only where the message came from.
  if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) {
    SendReply(param->reply_ep, frame.session, frame.id, frame.op, Response{EACCES, {}, {}}, kSessionUnknown);
  }
}

ucs_status_t Server::OnRequest(void* arg, const void* header, size_t header_length, void* data, size_t length,
                               const ucp_am_recv_param_t* param) {
  auto* self = static_cast<Server*>(arg);
  auto frame = DecodeFrame({static_cast<const char*>(header), header_length});
  ServedOn where = ServedOn::kHandlers;
  Caller* caller = frame ? self->Admit(*frame, param, &where) : nullptr;
  if (caller == nullptr) {
    if (!frame) self->Unknown(param, Frame{});
    return UCS_OK;
  }
  self->stats_->CountRequest(caller->id, frame->payload.size() + length);
  auto job = std::make_unique<Job>();
  job->ep = caller->ep;
  job->caller = caller->id;
  job->session = std::string(frame->session);
  job->id = frame->id;
  job->op = frame->op;
  job->where = where;
  job->payload = std::string(frame->payload);
  job->prefix = frame->payload_in_data ? frame->payload_size : 0;
  if (length < job->prefix) {
    self->SendReply(job->ep, job->session, job->id, job->op,
                    Response{EPROTO, "request data shorter than its payload", {}});
    return UCS_OK;
  }
  if (!self->handler_) {
    self->SendReply(job->ep, job->session, job->id, job->op, Response{EOPNOTSUPP, {}, {}});
    return UCS_OK;
  }
  if (length > self->options_.max_bulk) {
    self->SendReply(job->ep, job->session, job->id, job->op,
                    Response{EMSGSIZE, "bulk part of " + std::to_string(length) + " bytes is too large", {}});
    return UCS_OK;
  }
  job->AllocBulk(self->bulk_pool_, length);
  if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
    if (length > 0) std::memcpy(job->bulk_mem.get(), data, length);
    job->SplitPrefix();
    self->Dispatch(std::move(job));
    return UCS_OK;
  }
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = &Server::OnRequestData;
  Job* raw = job.release();
  rp.user_data = new std::pair<Server*, Job*>(self, raw);
  ucs_status_ptr_t req = ucp_am_recv_data_nbx(self->worker_->handle(), data, raw->bulk_mem.get(), length, &rp);
  if (req == nullptr || UCS_PTR_IS_ERR(req)) {
    delete static_cast<std::pair<Server*, Job*>*>(rp.user_data);
    std::unique_ptr<Job> owned(raw);
    owned->SplitPrefix();
    if (req == nullptr) self->Dispatch(std::move(owned));
  }
  return UCS_INPROGRESS;
}

void Server::OnRequestData(void* request, ucs_status_t status, size_t, void* user_data) {
  auto* ctx = static_cast<std::pair<Server*, Job*>*>(user_data);
  Server* self = ctx->first;
  std::unique_ptr<Job> job(ctx->second);
  delete ctx;
  ucp_request_free(request);
  job->SplitPrefix();
  if (status == UCS_OK) self->Dispatch(std::move(job));
}

// On the driving thread (from UCX's receive callbacks).
void Server::Dispatch(std::unique_ptr<Job> job) {
  if (job->where == ServedOn::kDrivingThread) {
    inline_.Start(job->op, job->caller);
    Response r = handler_(job->caller, job->op, job->payload, job->bulk(), job->where);
    inline_.Done();
    if (r.status == kServeOnHandlers) {
      job->where = ServedOn::kHandlers;  // it would wait: a handler thread serves it again
    } else {
      completed_++;
      completed_ns_.store(NowNs(), std::memory_order_relaxed);
      if (server_eps_.count(job->ep)) SendReply(job->ep, job->session, job->id, job->op, std::move(r));
      return;
    }
  }
  Lane& lane = LaneFor(job->where);
  job->queued_ns = NowNs();
  {
    std::lock_guard lock(jobs_mu_);
    lane.jobs.push_back(std::move(job));
    lane.queued.store(lane.jobs.size(), std::memory_order_relaxed);
  }
  lane.cv.notify_one();
}

void Server::HandlerLoop(Lane* lane, Serving* serving) {
  serving->tid = ThreadId();
  while (true) {
    std::unique_ptr<Job> job;
    {
      std::unique_lock lock(jobs_mu_);
      lane->cv.wait(lock, [&] { return jobs_stopping_ || !lane->jobs.empty(); });
      if (lane->jobs.empty()) return;
      job = std::move(lane->jobs.front());
      lane->jobs.pop_front();
      lane->queued.store(lane->jobs.size(), std::memory_order_relaxed);
    }
    serving->Start(job->op, job->caller);
    Response r = handler_(job->caller, job->op, job->payload, job->bulk(), job->where);
    serving->Done();
    if (r.status == kServeOnHandlers) r = Response{EIO, "a handler thread was told to serve elsewhere", {}};
    completed_++;
    completed_ns_.store(NowNs(), std::memory_order_relaxed);
    auto* shared = new Response(std::move(r));
    Job* raw = job.release();
    bool queued = worker_->Submit([this, raw, shared] {
      std::unique_ptr<Job> j(raw);
      std::unique_ptr<Response> resp(shared);
      if (server_eps_.count(j->ep)) SendReply(j->ep, j->session, j->id, j->op, std::move(*resp));
    });
    if (!queued) {  // stopping: no reply goes out
      delete raw;
      delete shared;
    }
  }
}

std::string Server::Describe(int64_t now) const {
  auto seconds = [now](int64_t since) { return fmt::format("{:.1f} s", static_cast<double>(now - since) / 1e9); };
  std::string out =
      fmt::format("{} requests queued for the handler threads, {} for the own thread, the last finished {} ago;",
                  shared_lane_.queued.load(), own_lane_.queued.load(), seconds(completed_ns_.load()));
  auto one = [&](const std::string& who, const Serving& s) {
    uint16_t op = s.op.load(std::memory_order_acquire);
    std::string state = s.tid.load() != 0 ? KernelThreadState(s.tid.load()) : "";
    if (op == 0) {
      out += " " + who + " idle" + (state.empty() ? "" : " (" + state + ")") + ";";
    } else {
      out += fmt::format(" {} serving op {} for node {} for {}{};", who, op, s.caller.load(),
                         seconds(s.since_ns.load()), state.empty() ? "" : " (" + state + ")");
    }
  };
  for (size_t i = 0; i < serving_.size(); ++i) {
    one(i + 1 == serving_.size() && options_.served_on ? "own thread" : "thread " + std::to_string(i), *serving_[i]);
  }
  if (inline_.op.load() != 0) one("the progress thread", inline_);
  out.pop_back();
  return out;
}

// Whether a handler thread in a request is running, or waiting for I/O in the kernel (state R or
// D); one waiting for a lock, a timer or another node sleeps (S), and one stopped is T.
bool Server::Working() const {
  auto at_work = [](const Serving& s) {
    if (s.op.load(std::memory_order_acquire) == 0 || s.tid.load() == 0) return false;
    std::string state = KernelThreadState(s.tid.load());
    return !state.empty() && (state[0] == 'R' || state[0] == 'D');
  };
  for (const auto& s : serving_) {
    if (at_work(*s)) return true;
  }
  return false;
}

void Server::Sweep(int64_t now) {
  while (!retired_.empty() && (now - retired_.front().second >= kRetiredNs || retired_.size() > kMaxRetired)) {
    worker_->CloseEp(retired_.front().first);
    retired_.pop_front();
  }
}

void Server::Watch(int64_t now) {
  if (handlers_stopping_.load(std::memory_order_relaxed) || now - stuck_logged_ns_ < kStuckLogNs) return;
  int64_t oldest = now;  // when the request waiting longest was queued
  {
    std::lock_guard lock(jobs_mu_);
    for (const Lane* lane : {&shared_lane_, &own_lane_}) {
      if (!lane->jobs.empty()) oldest = std::min(oldest, lane->jobs.front()->queued_ns);
    }
  }
  if (now - oldest < kStuckNs) return;
  stuck_logged_ns_ = now;
  spdlog::warn("transport: node {} has had a request waiting for a handler thread for {:.1f} s: {}", gate_.self(),
               static_cast<double>(now - oldest) / 1e9, Describe(now));
}

void Server::SendReply(ucp_ep_h ep, std::string_view session, uint64_t id, uint16_t op, Response r, uint32_t flags) {
  auto* out = new OutReply{EncodeFrame(Kind::kReply, op, id, r.status, r.payload, session, flags), std::move(r.bulk)};
  if (PayloadGoesInData(r.payload)) out->bulk.insert(0, r.payload);
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.send = [](void* request, ucs_status_t, void* user_data) {
    delete static_cast<OutReply*>(user_data);
    ucp_request_free(request);
  };
  rp.user_data = out;
  ucs_status_ptr_t req =
      ucp_am_send_nbx(ep, kAmReply, out->frame.data(), out->frame.size(), out->bulk.data(), out->bulk.size(), &rp);
  if (req == nullptr || UCS_PTR_IS_ERR(req)) delete out;
}

}  // namespace bb::transport::ucx
