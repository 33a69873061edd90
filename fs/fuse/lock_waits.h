// F_SETLKW without a FUSE worker thread held: a lock request that another owner's lock blocks
// waits here and is tried again, every 1 ms at first and then less often (up to every 50 ms),
// until it is set, fails, or the kernel interrupts it (a signal reached the waiting process:
// EINTR). Its worker goes back to the session at once, so processes waiting for locks never use
// up the session's threads, among them the one whose close would free the lock.
//
// The kernel waits for the answer to a request it has sent even through SIGKILL, so every wait
// is answered: when set, on its error, on EINTR, or at Stop.
//
// Thread-safety: Add from any thread; one thread of its own tries the waits and answers them.
#pragma once

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <mutex>
#include <thread>

#include "fs/base/status.h"

namespace bb::fs {

class LockWaits {
 public:
  // true: the lock is set; false: still blocked.
  using Try = std::function<Result<bool>()>;

  LockWaits() = default;
  ~LockWaits() { Stop(); }
  LockWaits(const LockWaits&) = delete;
  LockWaits& operator=(const LockWaits&) = delete;

  // `req` waits for `try_set` to set its lock; answered 0, the error, or EINTR.
  void Add(fuse_req_t req, Try try_set);
  // Answers every wait EINTR and ends the thread; later Adds are answered EINTR at once.
  void Stop();
  // Waits not yet answered.
  size_t waiting() const;

 private:
  struct Wait {
    fuse_req_t req;
    Try try_set;
    std::chrono::steady_clock::time_point next;
    std::chrono::milliseconds every{1};
    bool registered = false;  // its interrupt callback is in place: it may be answered
    bool interrupted = false;
  };
  static void Interrupted(fuse_req_t req, void* self);
  void Loop();

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::list<Wait> waits_;
  bool stopped_ = false;
  int adding_ = 0;      // Adds between their two steps (Stop waits for them)
  std::thread thread_;  // started by the first Add
};

}  // namespace bb::fs
