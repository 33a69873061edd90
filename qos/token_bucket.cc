#include "qos/token_bucket.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bb::qos {

TokenBucket::TokenBucket(double rate, double burst, int64_t now_ns)
    : rate_(rate), burst_(burst), tokens_(burst), last_ns_(now_ns) {}

void TokenBucket::Refill(int64_t now_ns) {
  if (now_ns <= last_ns_) return;  // a clock that does not move forward adds nothing
  tokens_ = std::min(burst_, tokens_ + rate_ * static_cast<double>(now_ns - last_ns_) * 1e-9);
  last_ns_ = now_ns;
}

double TokenBucket::tokens(int64_t now_ns) const {
  if (now_ns <= last_ns_) return tokens_;
  return std::min(burst_, tokens_ + rate_ * static_cast<double>(now_ns - last_ns_) * 1e-9);
}

bool TokenBucket::TryTake(double n, int64_t now_ns) {
  Refill(now_ns);
  if (tokens_ + 1e-9 < std::min(n, burst_)) return false;
  tokens_ -= n;
  return true;
}

int64_t TokenBucket::WaitNs(double n, int64_t now_ns) const {
  double missing = std::min(n, burst_) - tokens(now_ns);
  if (missing <= 1e-9) return 0;
  if (rate_ <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::ceil(missing / rate_ * 1e9));
}

void TokenBucket::SetRate(double rate, double burst, int64_t now_ns) {
  Refill(now_ns);
  rate_ = rate;
  burst_ = burst;
  tokens_ = std::min(tokens_, burst_);
}

}  // namespace bb::qos
