#include "transport/ucx_worker.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>

#include <cstdlib>

#include "fs/base/thread_name.h"

namespace bb::transport::ucx {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status UcsError(ucs_status_t s, const std::string& what) { return Status(EIO, what + ": " + ucs_status_string(s)); }

namespace {

void Relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

Worker::Worker(std::chrono::microseconds poll_spin)
    : spin_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(poll_spin).count()) {}

Worker::~Worker() {
  Stop();
  if (worker_ != nullptr) ucp_worker_destroy(worker_);
  if (context_ != nullptr) ucp_cleanup(context_);
}

namespace {

// The name of the interface that has IPv4 address `host` ("" when none has it, or for 0.0.0.0).
std::string InterfaceOf(const std::string& host) {
  in_addr want{};
  if (::inet_pton(AF_INET, host.c_str(), &want) != 1 || want.s_addr == INADDR_ANY) return "";
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string name;
  for (ifaddrs* i = list; i != nullptr && name.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr == want.s_addr) name = i->ifa_name;
  }
  ::freeifaddrs(list);
  return name;
}

}  // namespace

Status Worker::Open(const std::string& bind_host) {
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  ucp_config_t* config = nullptr;
  ucs_status_t s = ucp_config_read(nullptr, nullptr, &config);
  if (s != UCS_OK) return UcsError(s, "ucp_config_read");
  std::string device = std::getenv("UCX_NET_DEVICES") ? "" : InterfaceOf(bind_host);
  if (!device.empty() && (s = ucp_config_modify(config, "NET_DEVICES", device.c_str())) != UCS_OK) {
    ucp_config_release(config);
    return UcsError(s, "UCX_NET_DEVICES=" + device);
  }
  s = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (s != UCS_OK) return UcsError(s, "ucp_init");
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  s = ucp_worker_create(context_, &wp, &worker_);
  if (s != UCS_OK) return UcsError(s, "ucp_worker_create");
  s = ucp_worker_get_efd(worker_, &efd_);
  if (s != UCS_OK) return UcsError(s, "ucp_worker_get_efd");
  ucp_address_t* address = nullptr;
  size_t length = 0;
  s = ucp_worker_get_address(worker_, &address, &length);
  if (s != UCS_OK) return UcsError(s, "ucp_worker_get_address");
  address_.assign(reinterpret_cast<const char*>(address), length);
  ucp_worker_release_address(worker_, address);
  return Status::Ok();
}

Result<ucp_ep_h> Worker::Connect(const std::string& address, ucp_err_handler_cb_t on_error, void* arg) {
  ucp_ep_params_t ep{};
  ep.field_mask =
      UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep.address = reinterpret_cast<const ucp_address_t*>(address.data());
  ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep.err_handler.cb = on_error;
  ep.err_handler.arg = arg;
  ucp_ep_h handle = nullptr;
  ucs_status_t s = ucp_ep_create(worker_, &ep, &handle);
  if (s != UCS_OK) return UcsError(s, "connect to a worker");
  return handle;
}

Status Worker::SetAmHandler(unsigned id, ucp_am_recv_callback_t cb, void* arg) {
  ucp_am_handler_param_t p{};
  p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  p.id = id;
  p.cb = cb;
  p.arg = arg;
  ucs_status_t s = ucp_worker_set_am_recv_handler(worker_, &p);
  return s == UCS_OK ? Status::Ok() : UcsError(s, "ucp_worker_set_am_recv_handler");
}

void Worker::StartProgress(Hooks hooks) {
  hooks_ = std::move(hooks);
  progress_ = NamedThread("bb-progress", [this] { ProgressLoop(); });
}

void Worker::Stop() {
  if (!progress_.joinable()) return;
  {
    std::lock_guard lock(submit_mu_);
    stopping_ = true;
  }
  ucp_worker_signal(worker_);
  progress_.join();
}

bool Worker::Submit(std::function<void()> fn) {
  {
    std::lock_guard lock(submit_mu_);
    if (stopping_) return false;
    submissions_.push_back(std::move(fn));
  }
  // Whoever drives the worker (the progress thread while it spins, or a caller) picks the work
  // up; only a progress thread asleep in poll needs the signal. The two seq_cst flags pair with
  // the progress thread's: it sets sleeping_, then reads has_work_.
  has_work_.store(true);
  if (sleeping_.load()) {
    ucp_worker_signal(worker_);
  } else if (napping_.load()) {
    { std::lock_guard lock(nap_mu_); }  // the napper is in its wait, or will see has_work_
    nap_cv_.notify_one();
  }
  return true;
}

// Runs the closures handed over by other threads. The caller holds worker_mu_. True when there
// were any.
bool Worker::RunSubmissions() {
  if (!has_work_.exchange(false)) return false;
  std::vector<std::function<void()>> work;
  {
    std::lock_guard lock(submit_mu_);
    work.swap(submissions_);
  }
  for (auto& fn : work) fn();
  return !work.empty();
}

void Worker::CloseEp(ucp_ep_h ep) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
  ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &rp);
  if (req != nullptr && !UCS_PTR_IS_ERR(req)) closing_.push_back(req);
}

// Lets forced closes and the sends they cancel complete, within a bound.
void Worker::DrainClosing(int64_t until_ns) {
  while (!closing_.empty() && NowNs() < until_ns) {
    ucp_worker_progress(worker_);
    std::erase_if(closing_, [](void* req) {
      if (ucp_request_check_status(req) == UCS_INPROGRESS) return false;
      ucp_request_free(req);
      return true;
    });
  }
}

// Drives the worker whenever no caller does: runs handed-over work and UCX progress until a
// round finds nothing, sweeps, keeps polling (with a pause instruction, never a yield) for
// poll_spin after its last event, then sleeps in poll on the worker's event fd until UCX or
// Submit wakes it: an idle daemon's progress thread wakes once a second. While callers drive the worker themselves
// it naps instead: in poll, every event their calls consume would wake it for nothing.
void Worker::ProgressLoop() {
  progress_tid_ = ThreadId();
  int64_t next_sweep = 0;
  int64_t last_event = 0;
  while (true) {
    std::unique_lock wl(worker_mu_, std::defer_lock);
    if (drivers_waiting_.load(std::memory_order_relaxed) > 0 || !wl.try_lock()) {
      Nap();  // a caller drives, or is about to
      continue;
    }
    Doing("running handed-over work");
    bool busy = RunSubmissions();
    if (stopping_.load() && !busy && !has_work_.load()) break;
    Doing("polling UCX (and serving what arrives)");
    while (ucp_worker_progress(worker_) != 0) busy = true;
    int64_t now = NowNs();
    if (now >= next_sweep) {
      Doing("sweeping the calls' deadlines");
      hooks_.sweep(now);
      next_sweep = now + 1'000'000;  // every millisecond
    }
    if (busy) {
      // More may have come while this round ran: look again at once (no yield: on shared cores
      // sched_yield handed the core around for nothing, 16 % of a daemon's samples).
      last_event = now;
      continue;
    }
    if (now - last_event < spin_ns_) {
      // Polling for poll_spin after the last event, so back-to-back messages find this thread
      // awake; the lock is dropped so a caller may drive meanwhile.
      wl.unlock();
      Relax();
      continue;
    }
    bool idle = hooks_.idle();
    if (idle && now - last_drive_ns_.load(std::memory_order_relaxed) < 2 * kNapNs) {
      wl.unlock();
      Nap();
      continue;
    }
    SleepInPoll(wl, idle);
  }
  std::lock_guard wl(worker_mu_);
  hooks_.close_all();
  DrainClosing(NowNs() + 2'000'000'000);
}

// Sleeps in poll on the worker's event fd, the worker lock `wl` dropped, until UCX or Submit wakes
// it or the timeout for what waits passes; nothing when work came meanwhile.
void Worker::SleepInPoll(std::unique_lock<std::mutex>& wl, bool idle) {
  sleeping_.store(true);
  if (has_work_.load() || stopping_.load()) {
    sleeping_.store(false);
    return;
  }
  idle_sleep_.store(idle);
  if (ucp_worker_arm(worker_) == UCS_OK) {
    // Idle (no call waits for anything): nothing is due but what wakes it (a message, a
    // Submit); a second bounds what was missed. Calls waiting for replies need the sweep for
    // their deadlines and pings, which 20 ms serves (a reply wakes it at once); only a call
    // pushed back, sent again after 1 ms and more, needs it sooner. Waking every millisecond
    // while calls were out cost a daemon five wake-ups per create at 200 creates/s.
    int timeout_ms = idle ? 1000 : hooks_.retrying && hooks_.retrying() ? 1 : 20;
    wl.unlock();
    pollfd pfd{efd_, POLLIN, 0};
    asleep_ = true;
    ::poll(&pfd, 1, timeout_ms);
    asleep_ = false;
    Doing("waking");
  }
  idle_sleep_.store(false);
  sleeping_.store(false);
}

// The progress thread's sleep while callers drive: up to kNapNs, or until a caller hands the
// worker back with its call still open, or work is submitted.
void Worker::Nap() {
  std::unique_lock lock(nap_mu_);
  napping_ = true;
  nap_cv_.wait_for(lock, std::chrono::nanoseconds(kNapNs), [&] { return handback_ || has_work_.load(); });
  handback_ = false;
  napping_ = false;
}

bool Worker::Stalled(int64_t now, int64_t limit_ns) const {
  return progress_tid_.load() != 0 && !stopping_.load() && SinceBeatNs(now) >= limit_ns;
}

std::string Worker::Describe(int64_t now) const {
  std::string state = progress_tid_.load() != 0 ? KernelThreadState(progress_tid_.load()) : "";
  return std::string("the progress thread: ") + (asleep_.load() ? "asleep" : doing_.load()) + " for " +
         std::to_string((now - beat_ns_.load()) / 1'000'000) + " ms" + (state.empty() ? "" : " (" + state + ")");
}

void Worker::HandBack() {
  {
    std::lock_guard lock(nap_mu_);
    handback_ = true;
    if (!napping_) return;
  }
  nap_cv_.notify_one();
}

// A caller drives the worker itself while it waits for its reply, for up to poll_spin: no
// hand-off to the progress thread and back, which on a busy or virtualised host costs more than
// the round trip.
bool Worker::Drive(const std::function<void()>& start, const std::function<bool()>& done) {
  if (spin_ns_ <= 0) return false;
  if (drivers_waiting_.fetch_add(1, std::memory_order_relaxed) > 0) {
    drivers_waiting_.fetch_sub(1, std::memory_order_relaxed);
    return false;  // another caller is about to drive: it will run this call's hand-over
  }
  // The progress thread backs off when it sees a waiting driver; its turn is short.
  int64_t begin = NowNs();
  std::unique_lock wl(worker_mu_, std::try_to_lock);
  while (!wl.owns_lock() && NowNs() - begin < kLockWaitNs) {
    Relax();
    wl.try_lock();
  }
  drivers_waiting_.fetch_sub(1, std::memory_order_relaxed);
  if (!wl.owns_lock() || stopping_.load()) return false;
  Doing("driven by a caller");
  RunSubmissions();  // work handed over earlier goes first (a SetPeer, say)
  start();
  int64_t now = NowNs();
  const int64_t until = now + spin_ns_;
  while (!done() && (now = NowNs()) < until) {
    if (ucp_worker_progress(worker_) == 0 && !RunSubmissions()) Relax();
  }
  last_drive_ns_.store(now, std::memory_order_relaxed);
  Doing("handed back by a caller");
  wl.unlock();
  if (!done()) {
    // The progress thread takes over: it naps, or sleeps in poll armed before this caller
    // consumed the events that would have woken it.
    HandBack();
    if (sleeping_.load()) ucp_worker_signal(worker_);
  }
  return true;
}

bool Worker::SendNow(const std::function<void()>& start) {
  if (spin_ns_ > 0 || drivers_waiting_.load(std::memory_order_relaxed) > 0) return false;
  std::unique_lock wl(worker_mu_, std::try_to_lock);
  if (!wl.owns_lock() || stopping_.load()) return false;
  Doing("sending for a caller");
  RunSubmissions();  // work handed over earlier goes first
  start();
  // Push the send out; what else came is the progress thread's (bounded: a caller's thread does
  // not serve a flood of other nodes' messages).
  for (int i = 0; i < 16 && ucp_worker_progress(worker_) != 0; ++i) {
  }
  if (idle_sleep_.load()) {
    // Asleep for up to a second, timed for no calls out: this call's deadline needs its sweep.
    ucp_worker_signal(worker_);
  } else if (sleeping_.load()) {
    // The progress thread sleeps in poll, armed before the events this thread just consumed:
    // arm again so that the next one (the reply) wakes it. Events that keep coming (BUSY) are
    // its to take: wake it.
    bool armed = false;
    for (int i = 0; i < 4 && !armed; ++i) {
      ucs_status_t s = ucp_worker_arm(worker_);
      armed = s == UCS_OK;
      if (s != UCS_ERR_BUSY) break;
      (void)ucp_worker_progress(worker_);
    }
    // Arming reads the worker's signal: one that a Submit sent after this thread ran the
    // submissions (or a Stop) is taken with it, and must be given again.
    if (!armed || has_work_.load() || stopping_.load()) ucp_worker_signal(worker_);
  }
  Doing("handed back by a caller");
  wl.unlock();
  HandBack();  // a progress thread that found the worker taken naps: it may go on at once
  return true;
}

}  // namespace bb::transport::ucx
