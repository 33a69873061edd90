// The calling side's pings (kPingOp) while calls wait, and the verdict of transport/liveness.h
// on a late call's peer. Driving thread only, like the rest of the Client's peer state.
#include <memory>

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
  ping->op = kPingOp;
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

}  // namespace bb::transport::ucx
