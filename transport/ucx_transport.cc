// The UCX implementation of Transport, assembled from three parts: the worker and who drives it
// (ucx_worker.h, which also states the lock order), the calling side (ucx_client.h) and the
// serving side (ucx_server.h).
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "fs/base/thread_name.h"
#include "transport/transport.h"
#include "transport/ucx_client.h"
#include "transport/ucx_server.h"
#include "transport/ucx_worker.h"

namespace bb::transport {
namespace {

class UcxTransport final : public Transport {
 public:
  UcxTransport(const TransportOptions& options, Handler handler)
      : worker_(options.poll_spin),
        client_(options, &worker_, &stats_),
        server_(options, std::move(handler), &worker_, &stats_) {}

  ~UcxTransport() override {
    {
      std::lock_guard lock(watch_mu_);
      watch_stop_ = true;
    }
    watch_cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    server_.StopHandlers();  // no reply is handed over after this
    worker_.Stop();          // closes every endpoint on the driving thread
  }

  Status Start(const TransportOptions& options) {
    if (options.max_large_in_flight == 0) {
      return Status(EINVAL, "max_large_in_flight must be at least 1 (no large call could start)");
    }
    BB_RETURN_IF_ERROR(worker_.Open(options.listen_host));
    BB_RETURN_IF_ERROR(client_.Open());
    BB_RETURN_IF_ERROR(server_.Open());
    client_.SetDescribeServer([this](int64_t now) { return server_.Describe(now); });
    server_.SetWaitingOnLive([this] { return client_.WaitingOnLive(); });
    worker_.StartProgress({[this](int64_t now) {
                             client_.Expire(now);
                             server_.Sweep(now);
                           },
                           [this] { return !client_.HasPending(); }, [this] { return client_.Retrying(); },
                           [this] {
                             client_.CloseAll();
                             server_.CloseAll();
                           }});
    watchdog_ = NamedThread("bb-watchdog", [this] { WatchLoop(); });
    return Status::Ok();
  }

  void SetSelf(NodeId id) override {
    client_.SetSelf(id);
    server_.SetSelf(id);
  }
  void SetPeer(NodeId id, const std::string& host, uint16_t port) override {
    server_.SetPeer(id, host, port);
    client_.SetPeer(id, host, port);
  }
  Result<CallResult> Call(NodeId peer, uint16_t op, std::string_view payload, std::span<const char> bulk_out,
                          std::span<char> bulk_in, std::chrono::milliseconds deadline) override {
    return client_.Call(peer, op, payload, bulk_out, bulk_in, deadline);
  }
  uint16_t port() const override { return server_.port(); }
  std::vector<PeerCounters> Counters() const override { return stats_.Snapshot(); }

 private:
  // Looks at the driving thread and the handler threads from outside them, every
  // kWatchEveryMs: a thread that is held up cannot report itself (the log says what each does,
  // and in what state the kernel has it).
  void WatchLoop() {
    std::unique_lock lock(watch_mu_);
    int64_t last = ucx::NowNs();
    while (!watch_cv_.wait_for(lock, std::chrono::milliseconds(kWatchEveryMs), [this] { return watch_stop_; })) {
      int64_t now = ucx::NowNs();
      // Woken far later than asked: this process (or its host) was held up too, and every other
      // thread is only now running again. Nothing it sees is news.
      bool late = now - last > 4 * int64_t{kWatchEveryMs} * 1'000'000;
      last = now;
      if (late) continue;
      server_.Watch(now);
      if (worker_.Stalled(now, kStallNs) && now - stall_logged_ns_ >= kStallLogNs) {
        stall_logged_ns_ = now;
        spdlog::warn("transport: the driving thread has not come round for over {} s: {}; {}", kStallNs / 1'000'000'000,
                     worker_.Describe(now), server_.Describe(now));
      }
    }
  }
  static constexpr int kWatchEveryMs = 250;
  static constexpr int64_t kStallNs = 2'000'000'000;
  static constexpr int64_t kStallLogNs = 10'000'000'000;

  // Declared in the order they are built; the worker goes last.
  ucx::Worker worker_;
  ucx::PeerStats stats_;
  ucx::Client client_;
  ucx::Server server_;
  std::mutex watch_mu_;  // guards watch_stop_
  std::condition_variable watch_cv_;
  bool watch_stop_ = false;
  int64_t stall_logged_ns_ = 0;  // the watchdog's own
  std::thread watchdog_;
};

}  // namespace

Result<std::unique_ptr<Transport>> StartUcxTransport(const TransportOptions& options, Handler handler) {
  auto t = std::make_unique<UcxTransport>(options, std::move(handler));
  BB_RETURN_IF_ERROR(t->Start(options));
  return std::unique_ptr<Transport>(std::move(t));
}

}  // namespace bb::transport
