#include "fs/core/data/fan_out.h"

#include <atomic>
#include <memory>

#include "fs/base/thread_name.h"

namespace bb::fs {

struct FanOut::Batch {
  std::span<Task> tasks;
  std::unique_ptr<std::atomic<bool>[]> claimed;
  std::vector<Status> results;
  std::mutex mu;  // guards left
  std::condition_variable done;
  size_t left = 0;
};

FanOut::FanOut(size_t threads) {
  for (size_t i = 0; i < threads; ++i) helpers_.push_back(NamedThread("bb-fan-out", [this] { HelperLoop(); }));
}

FanOut::~FanOut() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : helpers_) t.join();
}

bool FanOut::Claim(Batch* batch, size_t index) { return !batch->claimed[index].exchange(true); }

void FanOut::RunClaimed(Batch* batch, size_t index) {
  batch->results[index] = batch->tasks[index]();
  // Notified under the lock: once `left` is 0 the caller may destroy the batch.
  std::lock_guard lock(batch->mu);
  if (--batch->left == 0) batch->done.notify_one();
}

Status FanOut::Run(std::span<Task> tasks) {
  if (tasks.empty()) return Status::Ok();
  Batch batch;
  batch.tasks = tasks;
  batch.claimed = std::make_unique<std::atomic<bool>[]>(tasks.size());
  batch.results.resize(tasks.size());
  batch.left = tasks.size();
  if (tasks.size() > 1 && !helpers_.empty()) {
    {
      std::lock_guard lock(mu_);
      for (size_t i = 1; i < tasks.size(); ++i) queue_.push_back({&batch, i});
    }
    if (tasks.size() == 2) {
      cv_.notify_one();
    } else {
      cv_.notify_all();
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {  // own task, then those no helper has started
    if (Claim(&batch, i)) RunClaimed(&batch, i);
  }
  {
    std::unique_lock lock(batch.mu);
    batch.done.wait(lock, [&] { return batch.left == 0; });
  }
  // Items of this batch still queued are all claimed; drop them before the batch goes away.
  {
    std::lock_guard lock(mu_);
    std::erase_if(queue_, [&](const Item& it) { return it.batch == &batch; });
  }
  for (Status& s : batch.results) {
    if (!s.ok()) return std::move(s);
  }
  return Status::Ok();
}

void FanOut::Post(std::function<void()> job) {
  if (helpers_.empty()) {
    job();
    return;
  }
  {
    std::lock_guard lock(mu_);
    posted_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void FanOut::HelperLoop() {
  while (true) {
    Item item{nullptr, 0};
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty() || !posted_.empty(); });
      if (queue_.empty() && posted_.empty()) return;
      if (queue_.empty()) {
        job = std::move(posted_.front());
        posted_.pop_front();
      } else {
        item = queue_.front();
        queue_.pop_front();
        // Claimed under mu_: a batch whose caller ran this task itself may be gone as soon as
        // the lock is released, and its items leave the queue only under mu_.
        if (!Claim(item.batch, item.index)) continue;
      }
    }
    if (job) {
      job();
    } else {
      RunClaimed(item.batch, item.index);
    }
  }
}

}  // namespace bb::fs
