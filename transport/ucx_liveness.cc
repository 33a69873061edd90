// The calling side's pings (kPingOp) while calls wait, the verdict of transport/liveness.h on a
// late call's peer, and the sweep that applies it (Expire), which also sends again the calls a
// busy peer pushed back. Driving thread only, like the rest of the Client's peer state.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

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
  uint64_t waiting = r.U64();
  bool answered = status.ok() && result.status == 0 && r.Finish("ping answer").ok();
  PingAnswered(&it->second.live, answered, served, NowNs(), LivenessNs(), waiting);
}

Verdict Client::Judge(NodeId id, int64_t now) const {
  auto it = peers_.find(id);
  return it == peers_.end() ? Verdict::kGone : transport::Judge(it->second.live, now, LivenessNs());
}

void Client::ReportLate(const CallRef& call, Verdict verdict, int64_t now) {
  if (call->reported && verdict != Verdict::kGone) return;
  call->reported = true;
  uint64_t held_back = 0;
  if (!late_log_.Admit((verdict == Verdict::kGone ? "gone " : "late ") + std::to_string(call->peer), now, &held_back)) {
    return;
  }
  auto ago = [now](int64_t t) {
    return t == 0 ? std::string("never") : fmt::format("{:.1f} s ago", static_cast<double>(now - t) / 1e9);
  };
  std::string peer = "unknown";
  if (auto it = peers_.find(call->peer); it != peers_.end()) {
    const Liveness& l = it->second.live;
    peer = fmt::format("answered a ping {}, finished a request {}, served {}{}", ago(l.last_pong_ns),
                       ago(l.progressed_ns), l.served, l.ping_pending ? ", a ping out" : "");
  }
  size_t out = 0, waiting = 0;
  for (const auto& [id, c] : pending_) out += !c->ping;
  for (const auto& [id, p] : peers_) waiting += p.waiting.size();
  const char* what = verdict == Verdict::kGone      ? "fails"
                     : verdict == Verdict::kAlive   ? "waits on"
                     : verdict == Verdict::kWaiting ? "waits on (the node waits on others)"
                                                    : "asks";
  spdlog::warn(
      "transport: a call of op {} to node {} {} after {:.1f} s (deadline {:.1f} s; {} more like it held back); "
      "node {}: {}; this node: {} calls out, {} waiting to connect; {}",
      call->op, call->peer, what, static_cast<double>(now - call->start_ns) / 1e9,
      static_cast<double>(call->patience_ns) / 1e9, held_back, call->peer, peer, out, waiting,
      describe_server_ ? describe_server_(now) : "");
}

// This side did not run for a while (the host paused, or this process did): the time is not
// held against the peers, who may have paused with it; every deadline and every time kept of them
// moves on by the gap.
void Client::MovePastPause(int64_t now) {
  int64_t gap = last_sweep_ns_ > 0 ? now - last_sweep_ns_ : 0;
  last_sweep_ns_ = now;
  if (gap < kPauseNs || !HasPending()) return;
  spdlog::warn("transport: this node did not run for {:.1f} s; the deadlines of its calls move on by as much",
               static_cast<double>(gap) / 1e9);
  for (auto& [id, call] : pending_) call->deadline_ns.fetch_add(gap, std::memory_order_relaxed);
  for (auto& [id, peer] : peers_) {
    Paused(&peer.live, gap);
    for (const CallRef& call : peer.waiting) call->deadline_ns.fetch_add(gap, std::memory_order_relaxed);
  }
}

// Sends again the calls busy peers pushed back that are due, and fails the calls waiting for a
// connection that is slower than they may be.
void Client::RetryAndExpireWaiting(int64_t now) {
  std::vector<CallRef> again;
  for (auto& [id, call] : pending_) {
    if (call->retry_at_ns != 0 && call->retry_at_ns <= now && !call->send_inflight) again.push_back(call);
  }
  for (const CallRef& call : again) {
    call->retry_at_ns = 0;
    StartCall(call);
  }
  for (auto& [id, peer] : peers_) {
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
}

// A call past its deadline: another deadline while its peer is alive, a look again shortly while
// that is not known, else ETIMEDOUT.
void Client::JudgeLate(const CallRef& call, int64_t now) {
  Verdict v = call->ping ? Verdict::kGone : Judge(call->peer, now);
  // Alive only because it waits on other nodes: a bounded number of extensions (a cycle of nodes
  // waiting on each other would keep itself alive).
  if (v == Verdict::kWaiting && ++call->waited_on > kMaxWaitedOn) v = Verdict::kGone;
  if (!call->ping) ReportLate(call, v, now);
  if (v == Verdict::kAlive || v == Verdict::kWaiting) {
    call->deadline_ns.store(now + call->patience_ns, std::memory_order_relaxed);
    SetExtended(call, true);
    stats_->CountExtension(call->peer);
    return;
  }
  SetExtended(call, false);
  if (v == Verdict::kAsk) {  // not known yet: ask, and look again shortly
    MaybePing(call->peer, now, /*force=*/true);
    call->deadline_ns.store(now + call->patience_ns / 16, std::memory_order_relaxed);
    return;
  }
  Decide(call, Status(ETIMEDOUT, "no reply from node " + std::to_string(call->peer) + " in time"), {});
  if (call->recv_req != nullptr) ucp_request_cancel(worker_->handle(), call->recv_req);
  if (call->send_inflight) {
    // The connection is stuck: close it so the send completes and the buffer is free.
    FailPeer(call->peer, Status(ETIMEDOUT, "connection to node " + std::to_string(call->peer) + " stalled"));
  }
}

void Client::Expire(int64_t now) {
  MovePastPause(now);
  RetryAndExpireWaiting(now);
  std::vector<CallRef> late;
  std::set<NodeId> waiting;  // peers with a call out for half its deadline or more
  for (auto& [id, call] : pending_) {
    if (!call->ping && now - call->start_ns >= call->patience_ns / 2) waiting.insert(call->peer);
    if (call->deadline_ns.load(std::memory_order_relaxed) <= now) late.push_back(call);
  }
  for (NodeId id : waiting) MaybePing(id, now);
  for (const CallRef& call : late) JudgeLate(call, now);
}

}  // namespace bb::transport::ucx
