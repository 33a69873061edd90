// FanOut: runs the independent pieces of one request at the same time — the chunk transfers of a
// read or write that spans several chunks on other nodes — so that a request of k remote chunks
// costs about one transfer instead of k in a row. With one request at a time per process (a
// plain write(2) loop) the links were otherwise idle between chunks.
//
// A batch's first task runs on the calling thread while helpers take the others; a task no
// helper has started when the caller is done with its own runs on the caller too, so a batch
// never waits behind another batch and a pool of any size (even 0) cannot deadlock.
//
// Thread-safety: Run may be called from any number of threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "fs/base/status.h"

namespace bb::fs {

class FanOut {
 public:
  using Task = std::function<Status()>;

  explicit FanOut(size_t threads);
  ~FanOut();
  FanOut(const FanOut&) = delete;
  FanOut& operator=(const FanOut&) = delete;

  // Runs every task and waits for all of them; returns the first failure in task order.
  Status Run(std::span<Task> tasks);

  // Runs `job` on a helper thread later, after the tasks of waiting batches (a pool without
  // helpers runs it at once, on the calling thread). Every posted job has run when the
  // FanOut is destroyed.
  void Post(std::function<void()> job);

 private:
  struct Batch;
  struct Item {
    Batch* batch;
    size_t index;
  };

  void HelperLoop();
  // True when this thread is the first to claim task `index` of `batch`.
  static bool Claim(Batch* batch, size_t index);
  static void RunClaimed(Batch* batch, size_t index);

  std::mutex mu_;  // guards queue_, posted_ and stopping_
  std::condition_variable cv_;
  std::deque<Item> queue_;
  std::deque<std::function<void()>> posted_;
  bool stopping_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace bb::fs
