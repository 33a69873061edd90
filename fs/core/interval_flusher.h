// IntervalFlusher: the thread behind a batch that goes out within an interval of its first
// item (DirChanges, ChunkRemovals). Wake() when an empty batch gets its first item; `flush`
// then runs on the thread one `interval` later, so the rest of a burst joins it. The thread
// sleeps without a timeout while nothing is waiting.
//
// Thread-safety: Wake from any thread; `flush` runs on the flusher's thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "fs/base/thread_name.h"

namespace bb::fs {

class IntervalFlusher {
 public:
  // `interval` 0: no thread (the owner flushes by itself).
  IntervalFlusher(const char* name, std::chrono::milliseconds interval, std::function<void()> flush)
      : interval_(interval), flush_(std::move(flush)) {
    if (interval_.count() > 0) thread_ = NamedThread(name, [this] { Loop(); });
  }
  ~IntervalFlusher() { Stop(); }
  IntervalFlusher(const IntervalFlusher&) = delete;
  IntervalFlusher& operator=(const IntervalFlusher&) = delete;

  void Wake() {
    {
      std::lock_guard lock(mu_);
      woken_ = true;
    }
    cv_.notify_all();
  }
  // Ends the thread (a flush under way finishes first); nothing is flushed after it.
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait(lock, [&] { return stop_ || woken_; });
      cv_.wait_for(lock, interval_, [&] { return stop_; });
      if (stop_) return;
      woken_ = false;  // an item that comes during the flush wakes the next one
      lock.unlock();
      flush_();
      lock.lock();
    }
  }

  const std::chrono::milliseconds interval_;
  const std::function<void()> flush_;
  std::mutex mu_;  // guards woken_ and stop_
  std::condition_variable cv_;
  bool woken_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bb::fs
