// Telling a peer that is gone from one that is alive and working through a queue (pure).
//
// While a call waits, its side pings the peer (kPingOp, answered by the peer's progress thread
// ahead of its queue, with the count of requests it has served). What the answers show:
// - Alive: an answer within the liveness period, and the served count grown between two answers,
//   the later within the period — or a reply to any call within the period. A late call to it
//   waits another deadline.
// - Gone: a ping unanswered for a whole period (stopped, wedged progress, lost link), or answers
//   for a whole period without the served count growing (alive but stuck). A late call fails.
// - Ask: not known yet (no recent answer, one still may come, or too few answers to judge): the
//   late call is looked at again shortly, with a ping out.
// - Waiting: it serves nothing itself, but it waits for calls of its own to other nodes that
//   are alive (its answer's waiting count grew): a chain of nodes waiting on one busy node
//   stays alive, for a bounded number of extensions (a cycle of nodes waiting on each other
//   would keep itself alive for ever).
// "Served" counts what the peer finished, and how often a ping found one of its handlers at
// work in the kernel (running, or in uninterruptible I/O: a node whose disk writes are
// throttled is busy, not stuck).
// Time the judge itself did not run (the whole host paused) is not held against the peer
// (Paused).
// A connection that breaks fails its calls at once, as before; this only decides deadlines.
#pragma once

#include <cstdint>

namespace bb::transport {

struct Liveness {
  int64_t last_pong_ns = 0;    // the last answer
  int64_t progressed_ns = 0;   // the last answer whose served count had grown
  int64_t quiet_since_ns = 0;  // the first answer since then (0: none)
  int64_t ping_sent_ns = 0;
  uint64_t served = 0;
  uint64_t waiting = 0;   // the peer's count of times it was found waiting on live nodes
  int64_t waited_ns = 0;  // the last answer whose waiting count had grown
  bool ping_pending = false;
  bool unanswered = false;  // the last ping expired or failed
};

enum class Verdict { kAlive, kWaiting, kAsk, kGone };

// Whether to send a ping now: none is out and none was sent in the last quarter period.
bool ShouldPing(const Liveness& l, int64_t now, int64_t period);
void PingSent(Liveness* l, int64_t now);
// A ping's outcome: answered with the peer's served and waiting counts, or not (expired, failed).
void PingAnswered(Liveness* l, bool answered, uint64_t served, int64_t now, int64_t period, uint64_t waiting = 0);
// The judge did not run for `gap_ns` (its host, or its process, was held up): every time kept
// moves on by as much, as if the clock had stood still.
void Paused(Liveness* l, int64_t gap_ns);
// A reply to one of this side's calls: the peer is alive and finished a request, whatever its
// pings say (under load a ping may wait behind data on the connection; replies do not lie).
void Replied(Liveness* l, int64_t now);
Verdict Judge(const Liveness& l, int64_t now, int64_t period);

}  // namespace bb::transport
