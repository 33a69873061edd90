// The calling side's connection set-up: the gate's handshake on a thread of its own (a peer that
// is slow to answer must not hold the driving thread), then the endpoint to the worker address
// the gate gave, on the driving thread. Calls wait in the peer's queue meanwhile.
#include <chrono>
#include <thread>

#include "transport/ucx_call.h"
#include "transport/ucx_client.h"

namespace bb::transport::ucx {

Client::~Client() {
  std::lock_guard lock(dials_mu_);
  for (auto& [thread, done] : dials_) thread.join();
}

void Client::Dial(NodeId id, Peer* p) {
  p->dialing = true;
  uint64_t generation = ++p->dial_generation;
  std::lock_guard lock(dials_mu_);
  for (auto it = dials_.begin(); it != dials_.end();) {  // reap the dials that are over
    if (!it->second->load()) {
      ++it;
      continue;
    }
    it->first.join();
    it = dials_.erase(it);
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  int timeout_ms = static_cast<int>(options_.deadline.count());
  dials_.emplace_back(std::thread([this, id, generation, host = p->host, port = p->port, done, timeout_ms] {
                        // A node that is still joining asks to be asked again.
                        int64_t until = NowNs() + int64_t{timeout_ms} * 1'000'000;
                        Result<Admission> admission = Status(ETIMEDOUT, "not tried");
                        for (;;) {
                          int left = static_cast<int>(std::max<int64_t>((until - NowNs()) / 1'000'000, 1));
                          admission = DialGate(host, port, options_.listen_host, options_.key, self_id_.load(), id,
                                               worker_->address(), left);
                          if (admission || admission.error().code() != EAGAIN || NowNs() > until) break;
                          std::this_thread::sleep_for(std::chrono::milliseconds(20));
                        }
                        worker_->Submit([this, id, generation, admission] { OnDialed(id, generation, admission); });
                        done->store(true);
                      }),
                      done);
}

void Client::OnDialed(NodeId id, uint64_t generation, Result<Admission> admission) {
  auto it = peers_.find(id);
  if (it == peers_.end() || it->second.dial_generation != generation) return;  // stale
  Peer& p = it->second;
  p.dialing = false;
  std::string what = "connect to node " + std::to_string(id);
  if (!admission) {
    int code = admission.error().code();
    if (code == EAGAIN) code = EACCES;  // still not admitted when the deadline came
    // A refusal and a timeout say what they are; anything else is a connection that failed.
    return FailWaiting(
        &p, Status(code == EACCES || code == ETIMEDOUT ? code : EIO, what + ": " + admission.error().message()));
  }
  auto ep = worker_->Connect(admission->worker_address, &Client::OnEpError, this);
  if (!ep) return FailWaiting(&p, ep.error().Annotate(what));
  p.ep = *ep;
  p.session = admission->session;
  client_eps_[p.ep] = id;
  std::vector<CallRef> calls = std::move(p.waiting);
  p.waiting.clear();
  for (const CallRef& call : calls) StartCall(call);
}

void Client::Reconnect(const CallRef& call) {
  if (call->resent) {
    return Decide(call, Status(EIO, "node " + std::to_string(call->peer) + " refused this connection's session twice"),
                  {});
  }
  call->resent = true;
  auto it = peers_.find(call->peer);
  if (it != peers_.end() && it->second.ep != nullptr && it->second.session == call->session) {
    client_eps_.erase(it->second.ep);
    worker_->CloseEp(it->second.ep);
    it->second.ep = nullptr;
    it->second.session.clear();
  }
  call->retry_at_ns = NowNs();  // the sweep sends it again once UCX is done with its first send
}

void Client::FailWaiting(Peer* p, const Status& why) {
  std::vector<CallRef> calls = std::move(p->waiting);
  p->waiting.clear();
  for (const CallRef& call : calls) Decide(call, why, {});
}

}  // namespace bb::transport::ucx
