#include "qos/stage.h"

#include <algorithm>
#include <limits>

#include "fs/base/thread_name.h"

namespace bb::qos {
namespace {

std::string Key(const std::string& job, Class cls) {
  std::string k(1, static_cast<char>(cls));
  k += job;
  return k;
}

double DefaultBurst(const Limit& l) { return l.burst > 0 ? l.burst : std::max(l.rate / 10, 1.0); }

}  // namespace

const char* ClassName(Class c) { return c == Class::kMetadata ? "metadata" : "data"; }

Stage::Stage(const Clock* clock, size_t threads, int64_t window_ns)
    : clock_(clock), window_ns_(window_ns), usage_since_ns_(clock->MonotonicNs()) {
  if (threads == 0) return;
  dispatcher_ = NamedThread("bb-qos-dispatch", [this] { DispatchLoop(); });
  for (size_t i = 0; i < threads; ++i) runners_.push_back(NamedThread("bb-qos-runner", [this] { RunnerLoop(); }));
}

Stage::~Stage() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (dispatcher_.joinable()) dispatcher_.join();
  {
    std::lock_guard lock(run_mu_);
    stop_ = true;
  }
  run_cv_.notify_all();
  for (auto& t : runners_) t.join();
  // Whatever still waits runs now: every continuation runs exactly once (it answers a request).
  std::vector<std::function<void()>> left;
  {
    std::lock_guard lock(mu_);
    for (Channel* ch : waiting_) {
      for (auto& p : ch->queue) left.push_back(std::move(p.run));
      ch->queue.clear();
    }
    waiting_.clear();
  }
  for (auto& r : runnable_) left.push_back(std::move(r));
  for (auto& r : left) r();
}

Stage::Channel* Stage::Find(const std::string& job, Class cls) {
  std::string key = Key(job, cls);
  {
    std::shared_lock lock(map_mu_);
    auto it = channels_.find(key);
    if (it != channels_.end()) return it->second.get();
  }
  std::unique_lock lock(map_mu_);
  auto& slot = channels_[key];
  if (!slot) {
    slot = std::make_unique<Channel>(job, cls);
    slot->window_start_ns.store(clock_->MonotonicNs());
  }
  return slot.get();
}

void Stage::Count(Channel* ch, uint64_t units) {
  ch->ops.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = ch->units.fetch_add(units, std::memory_order_relaxed);
  int64_t now = clock_->MonotonicNs();
  int64_t start = ch->window_start_ns.load(std::memory_order_relaxed);
  // The first request after a window ends closes it; it counts in the next one.
  if (now - start >= window_ns_ && ch->window_start_ns.compare_exchange_strong(start, now, std::memory_order_relaxed)) {
    uint64_t base = ch->window_start_units.exchange(before, std::memory_order_relaxed);
    ch->last_rate.store(static_cast<double>(before - base) * 1e9 / static_cast<double>(now - start),
                        std::memory_order_relaxed);
  }
}

void Stage::CountWait(Channel* ch, int64_t waited_ns) {
  ch->waited++;
  ch->wait_ns_total += waited_ns;
  ch->wait_ns_max = std::max(ch->wait_ns_max, waited_ns);
}

bool Stage::Admit(Channel* ch, uint64_t units) {
  if (!ch->limited.load(std::memory_order_acquire)) {
    Count(ch, units);
    return true;
  }
  {
    std::lock_guard lock(mu_);
    if (ch->bucket && (!ch->queue.empty() || !ch->bucket->TryTake(static_cast<double>(units), clock_->MonotonicNs()))) {
      return false;
    }
  }
  Count(ch, units);
  return true;
}

void Stage::Wait(Channel* ch, uint64_t units, std::function<void()> run) {
  {
    std::lock_guard lock(mu_);
    ch->queue.push_back({units, std::move(run), clock_->MonotonicNs()});
    waiting_.insert(ch);
  }
  cv_.notify_one();
}

int64_t Stage::Collect(int64_t now, std::vector<std::function<void()>>* ready) {
  int64_t next = std::numeric_limits<int64_t>::max();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Channel* ch = *it;
    while (!ch->queue.empty()) {
      Pending& head = ch->queue.front();
      if (ch->bucket && !ch->bucket->TryTake(static_cast<double>(head.units), now)) {
        int64_t wait = ch->bucket->WaitNs(static_cast<double>(head.units), now);
        if (wait != std::numeric_limits<int64_t>::max()) next = std::min(next, now + std::max<int64_t>(wait, 1));
        break;
      }
      CountWait(ch, now - head.since_ns);
      Count(ch, head.units);
      ready->push_back(std::move(head.run));
      ch->queue.pop_front();
    }
    it = ch->queue.empty() ? waiting_.erase(it) : std::next(it);
  }
  return next;
}

void Stage::DispatchLoop() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    std::vector<std::function<void()>> ready;
    int64_t now = clock_->MonotonicNs();
    int64_t next = Collect(now, &ready);
    if (!ready.empty()) {
      lock.unlock();
      {
        std::lock_guard rl(run_mu_);
        for (auto& r : ready) runnable_.push_back(std::move(r));
      }
      run_cv_.notify_all();
      lock.lock();
      continue;
    }
    if (next == std::numeric_limits<int64_t>::max()) {
      cv_.wait(lock);
    } else {
      cv_.wait_for(lock, std::chrono::nanoseconds(next - now));
    }
  }
}

void Stage::RunnerLoop() {
  std::unique_lock lock(run_mu_);
  for (;;) {
    run_cv_.wait(lock, [&] { return stop_ || !runnable_.empty(); });
    if (runnable_.empty()) return;  // stopping
    auto run = std::move(runnable_.front());
    runnable_.pop_front();
    lock.unlock();
    run();
    lock.lock();
  }
}

size_t Stage::Poll() {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard lock(mu_);
    Collect(clock_->MonotonicNs(), &ready);
  }
  for (auto& r : ready) r();
  return ready.size();
}

void Stage::SetLimit(const std::string& job, Class cls, std::optional<Limit> limit) {
  Channel* ch = Find(job, cls);
  {
    std::lock_guard lock(mu_);
    int64_t now = clock_->MonotonicNs();
    if (limit && limit->rate > 0) {
      if (ch->bucket) {
        ch->bucket->SetRate(limit->rate, DefaultBurst(*limit), now);
      } else {
        ch->bucket.emplace(limit->rate, DefaultBurst(*limit), now);
      }
    } else {
      ch->bucket.reset();
    }
    ch->limited.store(ch->bucket.has_value(), std::memory_order_release);
  }
  cv_.notify_all();
}

std::vector<ChannelStats> Stage::Stats() {
  std::vector<Channel*> all;
  {
    std::shared_lock lock(map_mu_);
    for (auto& [key, ch] : channels_) all.push_back(ch.get());
  }
  std::vector<ChannelStats> out;
  std::lock_guard lock(mu_);
  int64_t now = clock_->MonotonicNs();
  for (Channel* ch : all) {
    ChannelStats s;
    s.job = ch->job;
    s.cls = ch->cls;
    if (ch->bucket) s.limit = ch->bucket->rate();
    s.ops = ch->ops.load();
    s.units = ch->units.load();
    // The last full window's rate, or 0 once a whole window passed without traffic.
    s.rate = now - ch->window_start_ns.load() >= 2 * window_ns_ ? 0 : ch->last_rate.load();
    s.queued = ch->queue.size();
    s.waited = ch->waited;
    s.wait_ms_total = static_cast<double>(ch->wait_ns_total) / 1e6;
    s.wait_ms_max = static_cast<double>(ch->wait_ns_max) / 1e6;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const ChannelStats& a, const ChannelStats& b) {
    return std::tie(a.job, a.cls) < std::tie(b.job, b.cls);
  });
  return out;
}

Stage::Usage Stage::TakeUsage() {
  Usage u;
  int64_t now = clock_->MonotonicNs();
  {
    std::lock_guard lock(mu_);
    u.seconds = static_cast<double>(now - usage_since_ns_) / 1e9;
    usage_since_ns_ = now;
  }
  std::shared_lock lock(map_mu_);
  for (auto& [key, ch] : channels_) {
    uint64_t total = ch->units.load(std::memory_order_relaxed);
    uint64_t n = total - ch->usage_base.exchange(total, std::memory_order_relaxed);
    if (n > 0) u.units[{ch->job, ch->cls}] = n;
  }
  return u;
}

}  // namespace bb::qos
