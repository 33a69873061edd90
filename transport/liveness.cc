#include "transport/liveness.h"

#include <initializer_list>

namespace bb::transport {

bool ShouldPing(const Liveness& l, int64_t now, int64_t period) {
  return !l.ping_pending && (l.ping_sent_ns == 0 || now - l.ping_sent_ns >= period / 4);
}

void PingSent(Liveness* l, int64_t now) {
  l->ping_pending = true;
  l->ping_sent_ns = now;
}

void PingAnswered(Liveness* l, bool answered, uint64_t served, int64_t now, int64_t period, uint64_t waiting) {
  l->ping_pending = false;
  l->unanswered = !answered;
  if (!answered) return;
  // Work done between two recent answers is progress; one answer alone shows none (a peer stuck
  // in one long request answers pings too).
  bool recent = l->last_pong_ns > 0 && now - l->last_pong_ns < 2 * period;
  if (recent && served != l->served) {
    l->progressed_ns = now;
    l->quiet_since_ns = now;
  } else if (l->quiet_since_ns == 0) {
    l->quiet_since_ns = now;
  }
  if (recent && waiting != l->waiting) l->waited_ns = now;
  l->served = served;
  l->waiting = waiting;
  l->last_pong_ns = now;
}

void Paused(Liveness* l, int64_t gap) {
  for (int64_t* t : {&l->last_pong_ns, &l->progressed_ns, &l->quiet_since_ns, &l->ping_sent_ns, &l->waited_ns}) {
    if (*t > 0) *t += gap;
  }
}

void Replied(Liveness* l, int64_t now) {
  l->last_pong_ns = now;
  l->progressed_ns = now;
  l->quiet_since_ns = now;
  l->unanswered = false;
}

Verdict Judge(const Liveness& l, int64_t now, int64_t period) {
  // The last ping went unanswered: gone, even while a newer ping is out (its answer, when it
  // comes, says otherwise).
  if (l.unanswered) return Verdict::kGone;
  if (l.ping_pending && now - l.ping_sent_ns < period) return Verdict::kAsk;  // the answer may still come
  if (l.last_pong_ns == 0 || now - l.last_pong_ns >= period) return Verdict::kAsk;
  if (l.progressed_ns > 0 && now - l.progressed_ns < period) return Verdict::kAlive;
  if (l.waited_ns > 0 && now - l.waited_ns < period) return Verdict::kWaiting;
  if (l.quiet_since_ns > 0 && now - l.quiet_since_ns >= period) return Verdict::kGone;  // answers, no work done
  return Verdict::kAsk;
}

}  // namespace bb::transport
