// Stage: the QoS step every file-system request passes before it is routed
// (docs/architecture.md#qos-the-stage-and-the-controller).
// QoS admission happens in the FUSE adapter, before the request's one call into the core: the
// adapter finds the request's channel (qos/channel_cache.h) and submits the call here.
//
// A request is classified by the caller to (job, class, units): class metadata counts one unit
// per operation, class data counts bytes; the two never share a counter. Each (job, class) is a
// channel with its own token bucket and FIFO queue. A request on an unlimited channel runs at
// once, on the caller's thread (the stage is then a pass-through plus two counters). A request
// on a limited channel runs at once when its bucket admits it and no earlier request of the
// channel waits; otherwise its continuation waits in the channel's queue — holding no thread
// and no lock — until the dispatcher admits it and hands it to one of the stage's runner
// threads. So a caller (a FUSE worker) never blocks on a limit.
//
// Statistics per channel: admitted operations and units, the measured rate of the last window,
// the queue depth, and the time requests waited.
//
// Time comes from a Clock; with threads == 0 nothing runs in the background and tests call
// Poll() after advancing a ManualClock.
//
// No method fails: a request is admitted now or later, never refused.
//
// Thread-safety: every method may be called concurrently. Continuations run exactly once, on
// the submitting thread or on a runner thread; never under a stage lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/base/clock.h"
#include "qos/token_bucket.h"

namespace bb::qos {

enum class Class : uint8_t { kMetadata = 0, kData = 1 };
const char* ClassName(Class c);

// A channel's limit: `rate` units/s with a burst of `burst` units (0 = one tenth of a second
// of the rate, at least one request's worth). No limit = pass-through.
struct Limit {
  double rate = 0;
  double burst = 0;
};

struct ChannelStats {
  std::string job;
  Class cls = Class::kMetadata;
  std::optional<double> limit;  // units/s; none = unlimited
  uint64_t ops = 0;             // admitted requests
  uint64_t units = 0;           // admitted units (operations or bytes)
  double rate = 0;              // units/s admitted over the last full window
  size_t queued = 0;            // requests waiting now
  uint64_t waited = 0;          // requests that had to wait
  double wait_ms_total = 0;     // their total waiting time
  double wait_ms_max = 0;
};

class Stage {
 public:
  // `clock` must outlive the stage. `threads` runner threads run continuations that had to
  // wait; 0 = none (tests: Poll() dispatches and runs them inline). `window_ns`: the window
  // the measured rate is taken over.
  Stage(const Clock* clock, size_t threads, int64_t window_ns = 1'000'000'000);
  ~Stage();
  Stage(const Stage&) = delete;
  Stage& operator=(const Stage&) = delete;

  class Channel;
  // The channel of (job, class), created on first use.
  Channel* Find(const std::string& job, Class cls);

  // True: the request is admitted now (counted) and the caller runs it. False: it must wait;
  // the caller then hands its continuation to Wait(), which runs it once admitted.
  bool Admit(Channel* ch, uint64_t units);
  void Wait(Channel* ch, uint64_t units, std::function<void()> run);

  // Runs `run` now or once admitted.
  template <class F>
  void Submit(Channel* ch, uint64_t units, F&& run) {
    if (Admit(ch, units)) {
      run();
    } else {
      Wait(ch, units, std::function<void()>(std::forward<F>(run)));
    }
  }

  // Sets or clears (nullopt) the limit of a channel; waiting requests are re-examined at once.
  void SetLimit(const std::string& job, Class cls, std::optional<Limit> limit);

  std::vector<ChannelStats> Stats();
  // Units admitted per (job, class) since the previous call, and the seconds that covers.
  struct Usage {
    std::map<std::pair<std::string, Class>, uint64_t> units;
    double seconds = 0;
  };
  Usage TakeUsage();

  // Dispatches what is due now and runs it inline (for threads == 0); returns how many ran.
  size_t Poll();

 private:
  struct Pending {
    uint64_t units;
    std::function<void()> run;
    int64_t since_ns;
  };
  void Count(Channel* ch, uint64_t units);
  void CountWait(Channel* ch, int64_t waited_ns);
  // Pops every admissible head (mu_ held); returns the time of the next possible admission.
  int64_t Collect(int64_t now, std::vector<std::function<void()>>* ready);
  void DispatchLoop();
  void RunnerLoop();

  const Clock* const clock_;
  const int64_t window_ns_;

  mutable std::shared_mutex map_mu_;                                    // guards channels_
  std::unordered_map<std::string, std::unique_ptr<Channel>> channels_;  // key: class byte + job

  std::mutex mu_;  // guards buckets, queues and waiting_ of every channel
  std::condition_variable cv_;
  std::set<Channel*> waiting_;  // channels with queued requests
  int64_t usage_since_ns_;

  std::mutex run_mu_;  // guards runnable_
  std::condition_variable run_cv_;
  std::deque<std::function<void()>> runnable_;
  bool stop_ = false;  // guarded by mu_ and run_mu_
  std::thread dispatcher_;
  std::vector<std::thread> runners_;
};

class Stage::Channel {
 public:
  Channel(std::string job, Class cls) : job(std::move(job)), cls(cls) {}
  const std::string job;
  const Class cls;

 private:
  friend class Stage;
  // Guarded by Stage::mu_.
  std::optional<TokenBucket> bucket;
  std::deque<Pending> queue;
  uint64_t waited = 0;
  int64_t wait_ns_total = 0;
  int64_t wait_ns_max = 0;
  // Lock-free. An admitted request adds to `ops` and `units`; the rate window and the usage
  // since the last TakeUsage are differences of `units` against the totals kept below.
  std::atomic<bool> limited{false};
  std::atomic<uint64_t> ops{0};
  std::atomic<uint64_t> units{0};
  std::atomic<uint64_t> usage_base{0};          // `units` at the last TakeUsage
  std::atomic<uint64_t> window_start_units{0};  // `units` when the rate window began
  std::atomic<int64_t> window_start_ns{0};
  std::atomic<double> last_rate{0};
};

}  // namespace bb::qos
