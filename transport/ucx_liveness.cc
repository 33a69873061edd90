// The calling side's pings (kPingOp) while calls wait, the verdict of transport/liveness.h on a
// late call's peer, and the sweep that applies it (Expire), which also sends again the calls a
// busy peer pushed back. Driving thread only, like the rest of the Client's peer state.
#include <memory>
#include <set>
#include <vector>

#include "transport/ucx_call.h"
#include "transport/ucx_client.h"
#include "transport/wire.h"

namespace bb::transport::ucx {

int64_t Client::LivenessNs() const {
  auto period = options_.liveness.count() > 0 ? options_.liveness : options_.deadline;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(period).count();
}

void Client::MaybePing(NodeId id, int64_t now, bool force) {
  auto it = peers_.find(id);
  if (it == peers_.end()) return;
  Liveness& l = it->second.live;
  if (l.ping_pending || (!force && !ShouldPing(l, now, LivenessNs()))) return;
  auto ping = std::make_shared<PendingCall>();
  ping->owner = this;
  ping->id = next_id_.fetch_add(1);
  ping->peer = id;
  ping->ping = true;
  ping->start_ns = now;
  ping->patience_ns = LivenessNs();
  ping->deadline_ns = now + ping->patience_ns;
  ping->frame = EncodeFrame(Kind::kRequest, kPingOp, ping->id, 0, {});
  PingSent(&l, now);
  StartCall(ping);
}

void Client::OnPong(const CallRef& ping, const Status& status, const CallResult& result) {
  auto it = peers_.find(ping->peer);
  if (it == peers_.end()) return;
  Reader r(result.payload);
  uint64_t served = r.U64();
  bool answered = status.ok() && result.status == 0 && r.Finish("ping answer").ok();
  PingAnswered(&it->second.live, answered, served, NowNs(), LivenessNs());
}

Verdict Client::Judge(NodeId id, int64_t now) const {
  auto it = peers_.find(id);
  return it == peers_.end() ? Verdict::kGone : transport::Judge(it->second.live, now, LivenessNs());
}

void Client::Expire(int64_t now) {
  std::vector<CallRef> again;  // pushed back by busy peers, due now
  for (auto& [id, call] : pending_) {
    if (call->retry_at_ns != 0 && call->retry_at_ns <= now && !call->send_inflight) again.push_back(call);
  }
  for (const CallRef& call : again) {
    call->retry_at_ns = 0;
    StartCall(call);
  }
  for (auto& [id, peer] : peers_) {  // calls waiting for a connection that is slower than they may be
    for (auto it = peer.waiting.begin(); it != peer.waiting.end();) {
      if ((*it)->deadline_ns.load(std::memory_order_relaxed) > now || (*it)->ping) {
        ++it;
        continue;
      }
      CallRef call = *it;
      it = peer.waiting.erase(it);
      Decide(call, Status(ETIMEDOUT, "connect to node " + std::to_string(id) + ": no answer in time"), {});
    }
  }
  std::vector<CallRef> late;
  std::set<NodeId> waiting;  // peers with a call out for half its deadline or more
  for (auto& [id, call] : pending_) {
    int64_t due = call->deadline_ns.load(std::memory_order_relaxed);
    if (!call->ping && now - call->start_ns >= call->patience_ns / 2) waiting.insert(call->peer);
    if (due <= now) late.push_back(call);
  }
  for (NodeId id : waiting) MaybePing(id, now);
  for (const CallRef& call : late) {
    Verdict v = call->ping ? Verdict::kGone : Judge(call->peer, now);
    if (v == Verdict::kAlive) {  // alive and working through its queue: wait another deadline
      call->deadline_ns.store(now + call->patience_ns, std::memory_order_relaxed);
      stats_->CountExtension(call->peer);
      continue;
    }
    if (v == Verdict::kAsk) {  // not known yet: ask, and look again shortly
      MaybePing(call->peer, now, /*force=*/true);
      call->deadline_ns.store(now + call->patience_ns / 16, std::memory_order_relaxed);
      continue;
    }
    Decide(call, Status(ETIMEDOUT, "no reply from node " + std::to_string(call->peer) + " in time"), {});
    if (call->recv_req != nullptr) ucp_request_cancel(worker_->handle(), call->recv_req);
    if (call->send_inflight) {
      // The connection is stuck: close it so the send completes and the buffer is free.
      FailPeer(call->peer, Status(ETIMEDOUT, "connection to node " + std::to_string(call->peer) + " stalled"));
    }
  }
}

}  // namespace bb::transport::ucx
