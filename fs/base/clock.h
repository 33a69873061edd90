// Clock: the seam for time. Real code uses SystemClock; tests use ManualClock and never sleep.
//
// Monotonic time drives rates and deadlines; wall time stamps file times (IO500's find compares
// mtimes with the wall clock). Both are in nanoseconds.
//
// Thread-safety: SystemClock is stateless; ManualClock is safe to read and advance concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace bb {

class Clock {
 public:
  virtual ~Clock() = default;
  // Nanoseconds on a monotonic clock with an arbitrary origin.
  virtual int64_t MonotonicNs() const = 0;
  // Nanoseconds since the Unix epoch.
  virtual int64_t WallNs() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t MonotonicNs() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t WallNs() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_ns = 1'700'000'000'000'000'000) : now_(start_ns) {}
  int64_t MonotonicNs() const override { return now_.load(); }
  int64_t WallNs() const override { return now_.load(); }
  void Advance(int64_t ns) { now_.fetch_add(ns); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace bb
