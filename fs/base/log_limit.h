// LogLimiter: at most one log line per kind per window, for warnings that junk from outside can
// cause (refused connections, requests without a session): the first of a window is logged,
// the rest counted and the count told with the next line logged.
//
// Thread-safety: LogLimiter none (each user keeps one per thread that logs); SharedLogLimiter
// may be used from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace bb {

class LogLimiter {
 public:
  explicit LogLimiter(int64_t window_ns) : window_ns_(window_ns) {}

  // Whether a line of `kind` may be logged at `now_ns`; when it may, `*held_back` is the number
  // of lines of that kind held back since the last one.
  bool Admit(const std::string& kind, int64_t now_ns, uint64_t* held_back) {
    if (seen_.size() >= kMaxKinds && !seen_.count(kind)) seen_.clear();  // kinds name addresses: bounded
    auto [it, fresh] = seen_.try_emplace(kind, Seen{now_ns, 0});
    if (!fresh && now_ns - it->second.logged_ns < window_ns_) {
      ++it->second.held_back;
      return false;
    }
    *held_back = fresh ? 0 : it->second.held_back;
    it->second = Seen{now_ns, 0};
    return true;
  }

  static constexpr size_t kMaxKinds = 4096;

 private:
  struct Seen {
    int64_t logged_ns;
    uint64_t held_back;
  };
  const int64_t window_ns_;
  std::map<std::string, Seen> seen_;
};

// A LogLimiter for lines that many threads log (a failing FUSE operation, say).
class SharedLogLimiter {
 public:
  explicit SharedLogLimiter(int64_t window_ns) : limiter_(window_ns) {}
  bool Admit(const std::string& kind, int64_t now_ns, uint64_t* held_back) {
    std::lock_guard lock(mu_);
    return limiter_.Admit(kind, now_ns, held_back);
  }

 private:
  std::mutex mu_;  // guards limiter_
  LogLimiter limiter_;
};

}  // namespace bb
