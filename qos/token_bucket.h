// TokenBucket: a rate limiter with continuous refill and an explicit burst.
//
// Tokens accrue at `rate` per second up to `burst`. Time is passed in (`now_ns`, monotonic), so
// tests drive a manual clock and never sleep. A request of n tokens is admitted once the bucket
// holds min(n, burst); it then takes all n, possibly leaving a debt that the refill pays back
// first, so requests larger than the burst are admitted and the long-run rate stays exact.
// Metadata channels count operations, data channels count bytes; a bucket never mixes them.
//
// Thread-safety: none; the owning channel serializes access.
#pragma once

#include <cstdint>

namespace bb::qos {

class TokenBucket {
 public:
  // REQUIRES: rate >= 0, burst > 0. Starts full.
  TokenBucket(double rate, double burst, int64_t now_ns);

  // Takes `n` tokens if the bucket can admit them now; false (and no change) otherwise.
  bool TryTake(double n, int64_t now_ns);
  // Nanoseconds from `now_ns` until `n` tokens can be admitted; 0 when they can now;
  // INT64_MAX when the rate is 0 and they cannot.
  int64_t WaitNs(double n, int64_t now_ns) const;
  // Changes rate and burst from `now_ns` on (tokens accrued so far at the old rate are kept,
  // capped at the new burst).
  void SetRate(double rate, double burst, int64_t now_ns);

  double tokens(int64_t now_ns) const;
  double rate() const { return rate_; }
  double burst() const { return burst_; }

 private:
  void Refill(int64_t now_ns);
  double rate_;
  double burst_;
  double tokens_;
  int64_t last_ns_;
};

}  // namespace bb::qos
