#include "qos/client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "fs/base/tcp.h"
#include "fs/base/thread_name.h"
#include "qos/controller.h"

namespace bb::qos {
namespace {

int64_t NowMs() { return MonotonicMs(); }
constexpr int kSendMs = 5000;  // a message to or from the controller is small: 5 s is a stuck link

}  // namespace

Result<int> ConnectController(const std::string& host, uint16_t port, const auth::Key& key, int timeout_ms) {
  std::string where = "the controller at " + host + ":" + std::to_string(port);
  int64_t deadline = NowMs() + timeout_ms;
  auto fd = ConnectTcp(host, port, "", timeout_ms);
  if (!fd) return fd.error().Annotate("no controller answers");
  auto proved = auth::Dial(*fd, key, auth::kNoId, {}, static_cast<int>(std::max<int64_t>(deadline - NowMs(), 1)));
  if (!proved) {
    ::close(*fd);
    return proved.error().Annotate(where);
  }
  return *fd;
}

Result<nlohmann::json> AskController(const std::string& host, uint16_t port, const auth::Key& key,
                                     const nlohmann::json& request, int timeout_ms) {
  std::string address = host + ":" + std::to_string(port);
  BB_ASSIGN_OR_RETURN(int fd, ConnectController(host, port, key, timeout_ms));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (!SendAll(fd, Frame(request), kSendMs).ok()) return Status(EIO, "cannot send to the controller at " + address);
  int64_t deadline = NowMs() + timeout_ms;
  std::string in;
  char buf[65536];
  for (;;) {
    BB_ASSIGN_OR_RETURN(auto body, PopMessage(&in));
    if (body) return ParseMessage(*body);
    pollfd p{fd, POLLIN, 0};
    int64_t left = deadline - NowMs();
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) != 1) {
      return Status(ETIMEDOUT, "no reply from the controller at " + address);
    }
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return Status(n == 0 ? EPROTO : EIO, "no reply from the controller at " + address);
    in.append(buf, static_cast<size_t>(n));
  }
}

QosClient::QosClient(Stage* stage, std::string node, std::string host, uint16_t port, const auth::Key& key)
    : stage_(stage), node_(std::move(node)), host_(std::move(host)), port_(port), key_(key) {
  thread_ = NamedThread("bb-qos-client", [this] { Loop(); });
}

std::string QosClient::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

QosClient::~QosClient() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void QosClient::Loop() {
  const std::string address = host_ + ":" + std::to_string(port_);
  bool ever = false;     // connected once: a new connection is a reconnection
  std::string reported;  // the failure last logged: a failure is logged when it changes
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return;
    }
    auto fd = ConnectController(host_, port_, key_, 1000);
    {
      std::lock_guard lock(mu_);
      last_error_ = fd ? "" : fd.error().message();
    }
    if (!fd && fd.error().message() != reported) {
      reported = fd.error().message();
      spdlog::warn("qos: cannot reach the controller at {}: {}; trying every second, {}", address, reported,
                   ever ? "keeping the last rates" : "no limits from it meanwhile");
    }
    if (fd) {
      spdlog::info("qos: connected {}to the controller at {}", ever ? "again " : "", address);
      ever = true;
      reported.clear();
      connected_ = true;
      std::string why = Serve(*fd);
      connected_ = false;
      ::close(*fd);
      bool stopping;
      {
        std::lock_guard lock(mu_);
        stopping = stop_;
      }
      if (!stopping) {
        spdlog::warn("qos: lost the controller at {} ({}); keeping the last rates, reconnecting every second", address,
                     why);
      }
    }
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stop_; });
  }
}

std::string QosClient::Serve(int fd) {
  if (!SendAll(fd, Frame({{"type", "hello"}, {"node", node_}}), kSendMs).ok()) return "cannot send the hello";
  (void)stage_->TakeUsage();  // start measuring now
  std::string in;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return "stopping";
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, 200);
    if (r < 0 && errno != EINTR) return std::string("poll: ") + std::strerror(errno);
    if (r <= 0) continue;
    char buf[65536];
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n == 0) return "it closed the connection";
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return std::string("receive: ") + std::strerror(errno);
    }
    in.append(buf, static_cast<size_t>(n));
    for (;;) {
      auto next = PopMessage(&in);
      if (!next) return "it sent a message no controller sends";
      if (!*next) break;
      auto msg = ParseMessage(**next);
      if (!msg) continue;  // ignored
      if ((*msg)["type"] == "collect") {
        // The controller's collect phase: usage since the last report, per job and class.
        Stage::Usage u = stage_->TakeUsage();
        nlohmann::json usage = nlohmann::json::object();
        reported_.emplace();
        for (const auto& [key, units] : u.units) {
          double rate = u.seconds > 0 ? static_cast<double>(units) / u.seconds : 0;
          usage[key.first][ClassName(key.second)] = rate;
          auto& mine = (*reported_)[key.first];
          (key.second == Class::kMetadata ? mine.first : mine.second) = rate;
        }
        if (!SendAll(fd, Frame({{"type", "report"}, {"node", node_}, {"usage", usage}}), kSendMs).ok()) {
          return "cannot send the report";
        }
      } else if ((*msg)["type"] == "shares") {
        Apply(*msg);
      }
    }
  }
}

void QosClient::Apply(const nlohmann::json& msg) {
  auto limits = LimitsFromShares(msg, reported_ ? &*reported_ : nullptr);
  reported_.reset();
  if (!limits) return;  // ignored
  std::set<std::pair<std::string, Class>> now_limited;
  for (const auto& [job, rates] : *limits) {
    for (Class cls : {Class::kMetadata, Class::kData}) {
      const std::optional<double>& rate = cls == Class::kMetadata ? rates.first : rates.second;
      if (!rate) continue;
      // A rate of 0 would stop the job on this node for good (no usage, so no share next
      // cycle): a trickle of one unit per second keeps it visible.
      stage_->SetLimit(job, cls, Limit{std::max(*rate, 1.0), 0});
      now_limited.insert({job, cls});
    }
  }
  // What the controller no longer limits is free again.
  for (const auto& [job, cls] : limited_) {
    if (!now_limited.count({job, cls})) stage_->SetLimit(job, cls, std::nullopt);
  }
  limited_ = std::move(now_limited);
}

}  // namespace bb::qos
