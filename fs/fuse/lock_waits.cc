#include "fs/fuse/lock_waits.h"

#include <algorithm>
#include <cerrno>

#include "fs/base/thread_name.h"

namespace bb::fs {
namespace {

constexpr std::chrono::milliseconds kLongest{50};

// Answers a wait taken off the list (nothing else holds its request any more).
void Answer(fuse_req_t req, const Status& s) { fuse_reply_err(req, s.ok() ? 0 : (s.code() > 0 ? s.code() : EIO)); }

}  // namespace

void LockWaits::Add(fuse_req_t req, Try try_set) {
  std::list<Wait>::iterator it;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return Answer(req, Status(EINTR, "stopping"));
    it = waits_.insert(waits_.end(), Wait{req, std::move(try_set), std::chrono::steady_clock::now()});
    adding_++;
    if (!thread_.joinable()) thread_ = NamedThread("bb-lock-waits", [this] { Loop(); });
  }
  // Not under mu_: a request interrupted already has the callback called at once. The wait is
  // not answered (its request not freed) before this returns: `registered` is still false.
  fuse_req_interrupt_func(req, Interrupted, this);
  {
    std::lock_guard lock(mu_);
    it->registered = true;
    it->interrupted = it->interrupted || fuse_req_interrupted(req) != 0;
    adding_--;
  }
  cv_.notify_all();
}

void LockWaits::Interrupted(fuse_req_t req, void* self) {
  auto* w = static_cast<LockWaits*>(self);
  {
    std::lock_guard lock(w->mu_);
    for (Wait& wait : w->waits_) {
      if (wait.req == req) wait.interrupted = true;
    }
  }
  w->cv_.notify_all();
}

void LockWaits::Loop() {
  std::unique_lock lock(mu_);
  while (!stopped_) {
    auto now = std::chrono::steady_clock::now();
    auto due = std::chrono::steady_clock::time_point::max();
    std::list<Wait> ready;
    for (auto it = waits_.begin(); it != waits_.end();) {
      auto next = std::next(it);
      if (it->registered && (it->interrupted || it->next <= now)) {
        ready.splice(ready.end(), waits_, it);
      } else if (it->registered) {
        due = std::min(due, it->next);
      }
      it = next;
    }
    if (ready.empty()) {
      if (due == std::chrono::steady_clock::time_point::max()) {
        cv_.wait(lock);
      } else {
        cv_.wait_until(lock, due);
      }
      continue;
    }
    lock.unlock();
    std::list<Wait> again;
    for (auto it = ready.begin(); it != ready.end();) {
      auto next = std::next(it);
      Result<bool> set = it->interrupted ? Result<bool>(Status(EINTR, "interrupted")) : it->try_set();
      if (!set || *set) {
        Answer(it->req, set ? Status::Ok() : set.error());
      } else {
        it->every = std::min(it->every * 2, kLongest);
        it->next = std::chrono::steady_clock::now() + it->every;
        again.splice(again.end(), ready, it);
      }
      it = next;
    }
    lock.lock();
    waits_.splice(waits_.end(), again);
  }
}

void LockWaits::Stop() {
  std::list<Wait> left;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return adding_ == 0; });
    left.swap(waits_);
  }
  for (Wait& w : left) Answer(w.req, Status(EINTR, "stopping"));
}

size_t LockWaits::waiting() const {
  std::lock_guard lock(mu_);
  return waits_.size();
}

}  // namespace bb::fs
