// QosClient: a daemon's link to the controller (qos/controller.h has the messages). When the
// controller collects, it reports its stage's usage per job and class since the last report;
// it applies the rates the controller then sends. It connects on its own, and again every second after the controller
// goes away; meanwhile the stage keeps enforcing the last rates it had.
//
// Thread-safety: owns one thread; connected() and last_error() may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "fs/base/auth.h"
#include "fs/base/status.h"
#include "qos/controller.h"
#include "qos/stage.h"

namespace bb::qos {

// The controller link, for every program that talks to the controller: a TCP connection
// (fs/base/tcp.h) to an IPv4 host:port within `timeout_ms` on which this side proved the
// cluster key and the controller proved it back (fs/base/auth.h); the error (EACCES: refused,
// or not the controller of this key) when there is none. Send on it with bb::SendAll.
Result<int> ConnectController(const std::string& host, uint16_t port, const auth::Key& key, int timeout_ms);
// One request and its reply on a connection of its own, within `timeout_ms` (bbctl, tools).
Result<nlohmann::json> AskController(const std::string& host, uint16_t port, const auth::Key& key,
                                     const nlohmann::json& request, int timeout_ms);

class QosClient {
 public:
  // `stage` must outlive the client.
  QosClient(Stage* stage, std::string node, std::string host, uint16_t port, const auth::Key& key);
  ~QosClient();

  bool connected() const { return connected_.load(); }
  // Why the last attempt to connect failed ("" when it did not): a refusal of the key, or
  // nobody there. bbctl stats shows it; the daemon's stderr may lead nowhere.
  std::string last_error() const;

 private:
  void Loop();
  // One connection's life: hello, then reports and rates until it breaks; why it ended.
  std::string Serve(int fd);
  // Takes this node's limits from the controller's shares message (qos/controller.h).
  void Apply(const nlohmann::json& shares_message);

  Stage* const stage_;
  const std::string node_, host_;
  const uint16_t port_;
  const auth::Key key_;
  std::atomic<bool> connected_{false};
  std::set<std::pair<std::string, Class>> limited_;  // what this client limited (its thread only)
  // The usage this client reported for the cycle whose shares are due (its thread only).
  std::optional<NodeUsage> reported_;
  mutable std::mutex mu_;  // guards stop_ and last_error_
  std::string last_error_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace bb::qos
