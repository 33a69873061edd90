// bb-controller: the QoS controller (docs/architecture.md#qos-the-stage-and-the-controller).
// Daemons connect over TCP and report each job's usage every interval; each cycle the controller
// computes every job's rate with the policy's algorithm (collect -> compute -> enforce -> sleep)
// and sends every daemon the same shares message, from which each takes its own rates. `bbctl qos
// status` asks it what it decided.
//
//   bb-controller --policy FILE --key-file FILE [--listen IP:PORT]
//
// Every connection first proves the cluster key in `--key-file` (fs/base/auth.h): the
// controller serves no byte of anyone who does not, and logs such refusals at most once per
// 10 s. A connection has 3 s for its handshake; at most 64 may be in one at once.
// SIGHUP reloads the policy (a bad file is reported and changes nothing); SIGTERM/SIGINT stop.
// Messages and the policy file are described in qos/controller.h.
#include <fmt/format.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>

#include "fs/base/auth.h"
#include "fs/base/log_limit.h"
#include "qos/controller.h"
#include "tools/cli/cli.h"
#include "tools/config/qos_policy.h"

namespace asio = boost::asio;
using asio::ip::tcp;
using bb::qos::CycleResult;
using bb::qos::JobState;
using bb::qos::Policy;
using nlohmann::json;

namespace {

class Controller;

// One connection: a daemon (after its hello) or a one-off client such as bbctl.
class Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(tcp::socket s, Controller* c, const bb::auth::Key& key)
      : sock_(std::move(s)), ctl_(c), responder_(key), deadline_(sock_.get_executor()) {}
  // The handshake first; messages only after it.
  void Start();
  void Send(std::string frame);
  void Close() {
    boost::system::error_code ec;
    sock_.close(ec);
  }
  std::string node;  // set by hello
  std::string peer() const {
    boost::system::error_code ec;
    auto ep = sock_.remote_endpoint(ec);
    return ec ? "?" : ep.address().to_string() + ":" + std::to_string(ep.port());
  }
  // The peer's address without its port: what a kind of log line is keyed by (every connection
  // comes from a port of its own).
  std::string host() const {
    boost::system::error_code ec;
    auto ep = sock_.remote_endpoint(ec);
    return ec ? "?" : ep.address().to_string();
  }

 private:
  void ReadHello();
  void Refuse(const std::string& kind, const std::string& why, const std::string& answer);
  void ReadHeader();
  void ReadBody(uint32_t len);
  void Write();

  tcp::socket sock_;
  Controller* ctl_;
  bb::auth::Responder responder_;
  asio::steady_timer deadline_;
  std::array<char, 1024> hello_buf_{};
  std::array<char, 4> header_{};
  std::string body_;
  std::deque<std::string> out_;
};

class Controller {
 public:
  Controller(asio::io_context& io, tcp::endpoint listen, std::string policy_path, Policy policy, bb::auth::Key key)
      : key_(key),
        io_(io),
        acceptor_(io, listen),
        timer_(io),
        signals_(io, SIGHUP, SIGTERM, SIGINT),
        policy_path_(std::move(policy_path)),
        policy_(std::move(policy)) {}

  void Start() {
    Accept();
    WaitSignal();
    Schedule();
    spdlog::info("bb-controller: listening on {}, algorithm {}, interval {} ms, Max_R metadata {} ops/s, data {} B/s",
                 acceptor_.local_endpoint().port(), bb::qos::AlgorithmOf(policy_.algorithm).name, policy_.interval_ms,
                 policy_.max_metadata, policy_.max_data);
  }

  void OnMessage(const std::shared_ptr<Conn>& c, const json& m) {
    const std::string type = m["type"];
    if (type == "hello") {
      if (!m.contains("node") || !m["node"].is_string()) return Drop(c, "hello without a node name");
      c->node = m["node"];
      daemons_.insert(c);
      spdlog::info("node {} connected from {}", c->node, c->peer());
    } else if (type == "report") {
      if (c->node.empty()) return Drop(c, "report before hello");
      auto u = bb::qos::ParseUsage(m.contains("usage") ? m["usage"] : json());
      if (!u) return Drop(c, u.error().message());
      usage_[c->node] = std::move(*u);
      seen_[c->node] = Now();
      if (collecting_ && waiting_.erase(c) > 0 && waiting_.empty()) Compute();
    } else if (type == "status") {
      c->Send(bb::qos::Frame(Status()));
    } else {
      Drop(c, "unknown message type '" + type + "'");
    }
  }

  // A refusal, logged at most once per 10 s per kind (with the count of the rest).
  void Refused(const std::string& kind, const std::string& message) {
    uint64_t held_back = 0;
    if (!refusals_.Admit(kind, Now(), &held_back)) return;
    spdlog::warn("refused {}{}", message,
                 held_back ? fmt::format(" ({} more like it in the last 10 s)", held_back) : "");
  }
  void HandshakeOver() { handshaking_--; }
  static constexpr int kMaxHandshakes = 64;

  // Drops a connection that sent what no daemon or bbctl sends, logged as a refusal (rate-limited).
  void Drop(const std::shared_ptr<Conn>& c, const std::string& why) {
    Refused("drop " + c->host(),
            fmt::format("the connection {}{}: {}", c->peer(), c->node.empty() ? "" : " (node " + c->node + ")", why));
    Gone(c);
    c->Close();
  }
  void Gone(const std::shared_ptr<Conn>& c) {
    daemons_.erase(c);
    if (collecting_ && waiting_.erase(c) > 0 && waiting_.empty()) Compute();
  }

 private:
  static double ProcessCpuUs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
  }
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void Accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket s) {
      if (!ec && handshaking_ >= kMaxHandshakes) {
        Refused("busy", "a connection: " + std::to_string(kMaxHandshakes) + " handshakes are under way");
      } else if (!ec) {
        s.set_option(tcp::no_delay(true));
        handshaking_++;
        std::make_shared<Conn>(std::move(s), this, key_)->Start();
      }
      if (acceptor_.is_open()) Accept();
    });
  }

  void WaitSignal() {
    signals_.async_wait([this](boost::system::error_code ec, int sig) {
      if (ec) return;
      if (sig == SIGHUP) {
        auto p = bb::config::LoadPolicy(policy_path_);
        if (p) {
          policy_ = std::move(*p);
          spdlog::info("policy reloaded from {}: algorithm {}, {} jobs", policy_path_,
                       bb::qos::AlgorithmOf(policy_.algorithm).name, policy_.jobs.size());
        } else {
          spdlog::error("policy not reloaded, keeping the old one: {}", p.error().message());
        }
        WaitSignal();
        return;
      }
      spdlog::info("bb-controller: stopping");
      io_.stop();
    });
  }

  void Schedule() {
    timer_.expires_after(std::chrono::milliseconds(policy_.interval_ms));
    timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      Collect();
      Schedule();
    });
  }

  // collect: every daemon reports its usage of the interval that just ended; compute once all
  // have (or a quarter of the interval passed).
  void Collect() {
    if (collecting_) Compute();  // the previous collect never completed
    cycle_start_ = Now();
    collecting_ = true;
    waiting_ = daemons_;
    if (waiting_.empty()) return Compute();
    static const std::string collect = bb::qos::Frame({{"type", "collect"}});
    for (const auto& c : daemons_) c->Send(collect);
    collect_timer_.expires_after(std::chrono::milliseconds(std::max(policy_.interval_ms / 4, 1)));
    collect_timer_.async_wait([this](boost::system::error_code ec) {
      if (!ec && collecting_) Compute();
    });
  }

  // compute -> enforce.
  void Compute() {
    collecting_ = false;
    waiting_.clear();
    collect_timer_.cancel();
    int64_t start = cycle_start_;
    int64_t compute_start = Now();
    int64_t stale = 3LL * policy_.interval_ms * 1'000'000;
    for (auto it = usage_.begin(); it != usage_.end();) {
      bool live = Now() - seen_[it->first] < stale;
      it = live ? std::next(it) : usage_.erase(it);
    }
    int64_t policy_start = Now();
    CycleResult r = bb::qos::ComputeCycle(policy_, usage_, have_last_ ? &last_ : nullptr);
    policy_us_sum_ += static_cast<double>(Now() - policy_start) / 1e3;
    // One message for every daemon, framed once: each takes its own share from it, so this
    // step costs one write per daemon and nothing else per node.
    const std::string framed = bb::qos::FrameBody(bb::qos::SharesBody(r, policy_.interval_ms));
    for (const auto& c : daemons_) c->Send(framed);
    last_ = std::move(r);
    have_last_ = true;
    Record(start, compute_start);
  }

  // Keeps the cycle's rates and times for Status().
  void Record(int64_t start, int64_t compute_start) {
    // The metadata rates of the last cycles, so a client can tell in which cycle a rate moved.
    json rates = json::object();
    for (const auto& [job, s] : last_.jobs) rates[job] = s.rate[0];
    history_.push_back({{"cycle", cycles_ + 1}, {"start_s", static_cast<double>(start) / 1e9}, {"metadata", rates}});
    if (history_.size() > 16) history_.pop_front();
    cycle_us_ = static_cast<double>(Now() - start) / 1e3;
    // The controller's own CPU time since the last cycle ended: parsing reports, the policy,
    // framing and sending (its one thread does all of it).
    double cpu = ProcessCpuUs();
    if (cycles_ > 0) cpu_us_sum_ += cpu - last_cpu_us_;
    last_cpu_us_ = cpu;
    compute_us_ = static_cast<double>(Now() - compute_start) / 1e3;
    compute_us_sum_ += compute_us_;
    compute_us_max_ = std::max(compute_us_max_, compute_us_);
    cycle_us_max_ = std::max(cycle_us_max_, cycle_us_);
    cycle_us_sum_ += cycle_us_;
    cycles_++;
  }

  json Status() const {
    json jobs = json::array();
    for (const auto& [job, s] : last_.jobs) {
      jobs.push_back({{"job", job},
                      {"weight", s.weight},
                      {"demand", {{"metadata", s.demand[0]}, {"data", s.demand[1]}}},
                      {"rate", {{"metadata", s.rate[0]}, {"data", s.rate[1]}}},
                      {"usage", {{"metadata", s.usage[0]}, {"data", s.usage[1]}}}});
    }
    // Jobs that report usage but are not in the policy run unlimited.
    std::set<std::string> unmanaged;
    for (const auto& [node, u] : usage_) {
      for (const auto& [job, v] : u) {
        if (!policy_.jobs.count(job)) unmanaged.insert(job);
      }
    }
    json nodes = json::array();
    for (const auto& c : daemons_) nodes.push_back(c->node);
    return {{"type", "status"},
            {"algorithm", bb::qos::AlgorithmOf(policy_.algorithm).name},
            {"interval_ms", policy_.interval_ms},
            {"max_rate", {{"metadata", policy_.max_metadata}, {"data", policy_.max_data}}},
            {"nodes", nodes},
            {"cycles", cycles_},
            {"cycle_us", cycle_us_},
            {"cycle_us_max", cycle_us_max_},
            {"cycle_us_mean", cycles_ ? cycle_us_sum_ / static_cast<double>(cycles_) : 0.0},
            {"compute_us", compute_us_},
            {"compute_us_max", compute_us_max_},
            {"compute_us_mean", cycles_ ? compute_us_sum_ / static_cast<double>(cycles_) : 0.0},
            {"policy_us_mean", cycles_ ? policy_us_sum_ / static_cast<double>(cycles_) : 0.0},
            {"cpu_us_mean", cycles_ > 1 ? cpu_us_sum_ / static_cast<double>(cycles_ - 1) : 0.0},
            {"jobs", jobs},
            {"history", json(history_)},
            {"unmanaged", unmanaged}};
  }

  const bb::auth::Key key_;
  int handshaking_ = 0;
  bb::LogLimiter refusals_{10'000'000'000};
  asio::io_context& io_;
  tcp::acceptor acceptor_;
  asio::steady_timer timer_;
  asio::steady_timer collect_timer_{io_};
  asio::signal_set signals_;
  bool collecting_ = false;
  std::set<std::shared_ptr<Conn>> waiting_;  // daemons whose report this cycle is due
  int64_t cycle_start_ = 0;
  std::string policy_path_;
  Policy policy_;
  std::set<std::shared_ptr<Conn>> daemons_;
  std::map<std::string, bb::qos::NodeUsage> usage_;
  std::map<std::string, int64_t> seen_;
  CycleResult last_;
  bool have_last_ = false;
  // {"cycle": N, "start_s": collect time on the monotonic clock, "metadata": {job: rate}} of
  // the last 16 cycles.
  std::deque<json> history_;
  double cycle_us_ = 0;  // the last cycle: collect sent -> every daemon's rates sent
  double cycle_us_max_ = 0;
  double cycle_us_sum_ = 0;
  double compute_us_ = 0;  // the last cycle's compute + enforce, after every report was in
  double compute_us_sum_ = 0;
  double compute_us_max_ = 0;
  double policy_us_sum_ = 0;  // the policy computation alone (ComputeCycle)
  double cpu_us_sum_ = 0;     // the controller's CPU time per cycle, summed from the second cycle
  double last_cpu_us_ = 0;
  uint64_t cycles_ = 0;
};

void Conn::Start() {
  auto self = shared_from_this();
  deadline_.expires_after(std::chrono::seconds(3));
  deadline_.async_wait([this, self](boost::system::error_code ec) {
    if (!ec) Refuse("slow " + host(), "no hello in time", "");
  });
  Send(responder_.challenge());
  ReadHello();
}

void Conn::ReadHello() {
  auto self = shared_from_this();
  sock_.async_read_some(asio::buffer(hello_buf_), [this, self](boost::system::error_code ec, size_t n) {
    if (ec) {
      if (deadline_.cancel() > 0) ctl_->HandshakeOver();
      return;
    }
    auto got = responder_.Take({hello_buf_.data(), n});
    if (!got) {
      bool wrong_key = got.error().code() == EACCES;
      return Refuse((wrong_key ? "key " : "junk ") + host(), got.error().message(),
                    bb::auth::Responder::Refuse(wrong_key ? "the cluster key does not match" : "not a handshake"));
    }
    if (!got->has_value()) return ReadHello();
    if (deadline_.cancel() == 0) return;  // the deadline fired meanwhile
    ctl_->HandshakeOver();
    Send(responder_.Accept(bb::auth::kNoId, {}));
    ReadHeader();
  });
}

// Ends a handshake that failed: logs (rate-limited), answers when it can, closes once sent.
void Conn::Refuse(const std::string& kind, const std::string& why, const std::string& answer) {
  deadline_.cancel();
  ctl_->HandshakeOver();
  ctl_->Refused(kind, "a connection from " + peer() + ": " + why);
  if (answer.empty()) return Close();
  auto self = shared_from_this();
  auto shared = std::make_shared<std::string>(answer);
  asio::async_write(sock_, asio::buffer(*shared), [this, self, shared](boost::system::error_code, size_t) { Close(); });
}

void Conn::ReadHeader() {
  auto self = shared_from_this();
  asio::async_read(sock_, asio::buffer(header_), [this, self](boost::system::error_code ec, size_t) {
    if (ec) return ctl_->Gone(self);
    uint32_t len = bb::qos::FrameLength(header_.data());
    if (len > bb::qos::kMaxMessage) return ctl_->Drop(self, "message of " + std::to_string(len) + " bytes is too long");
    ReadBody(len);
  });
}

void Conn::ReadBody(uint32_t len) {
  auto self = shared_from_this();
  body_.resize(len);
  asio::async_read(sock_, asio::buffer(body_), [this, self](boost::system::error_code ec, size_t) {
    if (ec) return ctl_->Gone(self);
    auto m = bb::qos::ParseMessage(body_);
    if (!m) return ctl_->Drop(self, m.error().message());
    ctl_->OnMessage(self, *m);
    if (sock_.is_open()) ReadHeader();
  });
}

void Conn::Send(std::string frame) {
  bool idle = out_.empty();
  out_.push_back(std::move(frame));
  if (idle) Write();
}

void Conn::Write() {
  auto self = shared_from_this();
  asio::async_write(sock_, asio::buffer(out_.front()), [this, self](boost::system::error_code ec, size_t) {
    if (ec) return ctl_->Gone(self);
    out_.pop_front();
    if (!out_.empty()) Write();
  });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-controller: cluster-wide QoS rates for the burst buffer's jobs"};
  std::string policy_path, key_file, listen = "127.0.0.1:7600";
  app.add_option("--policy", policy_path, "policy file (YAML)")->required();
  app.add_option("--key-file", key_file, "the instance's cluster key (what daemons and bbctl must prove)")->required();
  app.add_option("--listen", listen, "IP:PORT to listen on");
  bb::cli::Setup(app);
  if (int rc = bb::cli::Parse(app, argc, argv, "bb-controller"); rc >= 0) return rc;
  // One descriptor per daemon: allow as many as the hard limit does.
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &lim);
  }
  auto policy = bb::config::LoadPolicy(policy_path);
  if (!policy) {
    std::fprintf(stderr, "bb-controller: %s\n", policy.error().message().c_str());
    return 1;
  }
  auto key = bb::auth::LoadKey(key_file);
  if (!key) {
    std::fprintf(stderr, "bb-controller: %s\n", key.error().message().c_str());
    return 1;
  }
  size_t colon = listen.rfind(':');
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(listen.substr(0, colon), ec);
  if (colon == std::string::npos || ec) {
    std::fprintf(stderr, "bb-controller: --listen wants IP:PORT, got '%s'\n", listen.c_str());
    return 1;
  }
  int port = std::atoi(listen.c_str() + colon + 1);
  try {
    asio::io_context io;
    Controller c(io, tcp::endpoint(addr, static_cast<unsigned short>(port)), policy_path, std::move(*policy), *key);
    c.Start();
    io.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bb-controller: %s\n", e.what());
    return 1;
  }
  return 0;
}
