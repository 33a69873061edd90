// IntervalFlusher: the thread behind a batch that goes out within an interval of its first
// item (DirChanges, ChunkRemovals). Wake() when an empty batch gets its first item; `flush`
// then runs on the thread one `interval` later, so the rest of a burst joins it. WakeAt(t)
// runs it at `t` (or earlier, with a Wake), for what is to be sent again later. The thread
// sleeps without a timeout while nothing is waiting.
//
// Thread-safety: Wake from any thread; `flush` runs on the flusher's thread only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
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
  // `flush` runs at `at` at the latest, though nothing woke it meanwhile (the earliest of
  // several such times counts).
  void WakeAt(std::chrono::steady_clock::time_point at) {
    {
      std::lock_guard lock(mu_);
      if (due_ && *due_ <= at) return;
      due_ = at;
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
      if (due_) {
        std::chrono::steady_clock::time_point due = *due_;  // WakeAt may move it earlier: woken again
        cv_.wait_until(lock, due, [&] { return stop_ || woken_ || due_ != due; });
      } else {
        cv_.wait(lock, [&] { return stop_ || woken_ || due_; });
      }
      if (stop_) return;
      if (woken_) {
        cv_.wait_for(lock, interval_, [&] { return stop_; });
        if (stop_) return;
      } else if (!due_ || std::chrono::steady_clock::now() < *due_) {
        continue;  // a time set or moved: wait for it
      }
      woken_ = false;  // an item that comes during the flush wakes the next one
      // A time this flush reached is done; a later one (a Wake came first) still waits.
      if (due_ && std::chrono::steady_clock::now() >= *due_) due_.reset();
      lock.unlock();
      flush_();
      lock.lock();
    }
  }

  const std::chrono::milliseconds interval_;
  const std::function<void()> flush_;
  std::mutex mu_;  // guards woken_, due_ and stop_
  std::condition_variable cv_;
  bool woken_ = false;
  std::optional<std::chrono::steady_clock::time_point> due_;  // WakeAt's earliest time
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bb::fs
