// Private to transport/: the UCX context and worker of one transport, and who drives them.
//
// Every UCX object (context, worker, listener, endpoints) is used by one thread at a time, the
// one holding the worker's lock: the progress thread, or a caller that drives the worker while
// its own reply is due (Drive). Other threads hand closures over through a queue (Submit),
// which the driving thread runs; a progress thread asleep in poll is woken with
// ucp_worker_signal. After its last event the progress thread keeps polling for `poll_spin`
// before it sleeps, so that back-to-back messages find it awake; while callers drive it naps
// instead. The client and server parts (ucx_client.h, ucx_server.h) run only on the driving
// thread, except where they say otherwise.
//
// Lock order of the transport (each lock is taken only after the ones before it, never the
// other way): Client::bulk_mu_ (a large call's slot, taken before anything else) -> the worker
// lock (held by the driving thread) -> PendingCall::mu -> { Worker::submit_mu_, Worker::nap_mu_,
// Server::jobs_mu_, PeerStats::mu_ } (leaves: nothing is taken while one is held).
//
// Thread-safety: Submit and Drive may be called from any thread; the rest from the thread that
// owns the transport (Open, StartProgress, Stop) or the driving thread (handle(), CloseEp).
#pragma once

#include <sys/types.h>
#include <ucp/api/ucp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fs/base/status.h"

namespace bb::transport::ucx {

int64_t NowNs();
Status UcsError(ucs_status_t s, const std::string& what);

class Worker {
 public:
  // What the progress thread asks of the parts above it, on the driving thread.
  struct Hooks {
    std::function<void(int64_t now_ns)> sweep;  // about every millisecond: expire late calls
    std::function<bool()> idle;                 // no call is waiting for a reply
    std::function<bool()> retrying;             // a call waits to be sent again (push-back)
    std::function<void()> close_all;            // at stop: fail calls, close endpoints
  };

  explicit Worker(std::chrono::microseconds poll_spin);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the context (active messages, wake-up) and the worker. EIO with UCX's message.
  // With `bind_host` (an IPv4 address), UCX's own sockets use only the interface that has it
  // (UCX_NET_DEVICES, unless the environment sets it), so nothing listens on other interfaces.
  Status Open(const std::string& bind_host = "");
  ucp_worker_h handle() const { return worker_; }
  // The worker's address, which peers connect to (after the gate admitted them).
  const std::string& address() const { return address_; }
  // Sets the active-message handler `id` (callbacks run on the driving thread).
  Status SetAmHandler(unsigned id, ucp_am_recv_callback_t cb, void* arg);
  void StartProgress(Hooks hooks);
  // Stops the progress thread (it runs close_all first), then destroys the worker and context.
  void Stop();

  // Runs `fn` on the driving thread soon. False (and `fn` dropped) once stopping.
  bool Submit(std::function<void()> fn);
  // Drives the worker on the calling thread: runs `start`, then polls until `done()` or for
  // poll_spin, whichever comes first, and hands the worker back. False (nothing run) when
  // another thread drives now, or poll_spin is 0: the caller then Submits `start` instead.
  bool Drive(const std::function<void()>& start, const std::function<bool()>& done);
  // Without poll_spin: runs `start` on the calling thread when no other thread drives the
  // worker now, pushes out what it sends, and leaves the rest (the reply) to the progress
  // thread, re-arming its sleep: no hand-off and no wake-up of the progress thread to send. False
  // (nothing run) otherwise: the caller then Submits `start`.
  bool SendNow(const std::function<void()>& start);
  bool stopping() const { return stopping_.load(); }
  // Whether the driving thread has not come round for `limit_ns` while it was not asleep (a
  // stall: a handler or a hook it runs is held up, and no ping of this node is answered), and
  // what it does then ("running handed-over work for 3.2 s (R)"). Any thread.
  bool Stalled(int64_t now_ns, int64_t limit_ns) const;
  // How long the driving thread has not come round (0 while it sleeps in poll). Any thread.
  int64_t SinceBeatNs(int64_t now_ns) const {
    return asleep_.load() ? 0 : now_ns - beat_ns_.load(std::memory_order_relaxed);
  }
  std::string Describe(int64_t now_ns) const;

  // Closes an endpoint by force; the close completes in the background (driving thread only).
  void CloseEp(ucp_ep_h ep);
  // An endpoint to the worker at `address` (from a peer's admission or hello), whose errors go
  // to `on_error` (driving thread only).
  Result<ucp_ep_h> Connect(const std::string& address, ucp_err_handler_cb_t on_error, void* arg);

 private:
  void ProgressLoop();
  bool RunSubmissions();
  void Nap();
  void SleepInPoll(std::unique_lock<std::mutex>& wl, bool idle);
  void HandBack();
  void DrainClosing(int64_t until_ns);
  // What the driving thread does now, from when (Stalled, Describe); a caller that drives sets
  // it too.
  void Doing(const char* what) {
    doing_.store(what, std::memory_order_relaxed);
    beat_ns_.store(NowNs(), std::memory_order_relaxed);
  }

  const int64_t spin_ns_;
  Hooks hooks_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int efd_ = -1;
  std::string address_;

  std::mutex submit_mu_;  // guards submissions_
  std::vector<std::function<void()>> submissions_;
  std::atomic<bool> stopping_{false};      // set under submit_mu_, so no work is queued after it
  std::atomic<bool> has_work_{false};      // submissions_ may be non-empty
  std::atomic<bool> sleeping_{false};      // the progress thread is (about to be) in poll
  std::atomic<bool> idle_sleep_{false};    // ... for the idle timeout (no call was out)
  std::atomic<int> drivers_waiting_{0};    // callers waiting to drive the worker
  std::atomic<int64_t> last_drive_ns_{0};  // when a caller last stopped driving
  // The progress thread's nap while callers drive. Shorter naps wake it more often, and on a
  // small host each wake-up takes a driving caller's core (bench/results/history.md compares 0.1 ms and
  // 1 ms). A request from another node that comes between two drives waits for the next
  // driver or the end of the nap.
  static constexpr int64_t kNapNs = 1'000'000;
  static constexpr int64_t kLockWaitNs = 5'000;  // a driver's wait for the progress thread's turn
  std::mutex nap_mu_;                            // guards handback_, and napping_'s changes
  std::condition_variable nap_cv_;
  std::atomic<bool> napping_{false};  // set under nap_mu_; Submit reads it without
  bool handback_ = false;

  // Held by whichever thread drives UCX. Everything below is touched only by that thread.
  std::mutex worker_mu_;
  std::vector<void*> closing_;  // forced closes still completing
  std::thread progress_;
  std::atomic<const char*> doing_{"starting"};
  std::atomic<int64_t> beat_ns_{0};
  std::atomic<bool> asleep_{false};  // in poll (nothing to drive): not coming round is no stall
  std::atomic<pid_t> progress_tid_{0};
};

}  // namespace bb::transport::ucx
