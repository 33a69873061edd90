// QosClient: a daemon's link to the controller (qos/controller.h has the messages). When the
// controller collects, it reports its stage's usage per job and class since the last report;
// it applies the rates the controller then sends. It connects on its own, and again every second after the controller goes away;
// meanwhile the stage keeps enforcing the last rates it had.
//
// Thread-safety: owns one thread; connected() may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <nlohmann/json.hpp>
#include <thread>

#include "qos/stage.h"

namespace bb::qos {

class QosClient {
 public:
  // `stage` must outlive the client.
  QosClient(Stage* stage, std::string node, std::string host, uint16_t port);
  ~QosClient();

  bool connected() const { return connected_.load(); }

 private:
  void Loop();
  // One connection's life: hello, then reports and rates until it breaks.
  void Serve(int fd);
  void Apply(const nlohmann::json& rates_message);

  Stage* const stage_;
  const std::string node_, host_;
  const uint16_t port_;
  std::atomic<bool> connected_{false};
  std::set<std::pair<std::string, Class>> limited_;  // what this client limited (its thread only)
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace bb::qos
