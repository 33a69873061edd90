// bb-qos-sim: N simulated daemons in one process, connected to a real bb-controller; each
// answers every collect with a report of J jobs' usage and takes its own rates from the shares
// message, as a daemon does. After the run it prints, from the controller's own account:
// clients, jobs, shares messages taken, the mean and max full cycle (collect sent -> every
// daemon's shares sent), the mean and max of its compute + enforce part (every report in ->
// every daemon's shares sent), the mean of the policy computation alone, and the controller
// process's own CPU time per cycle (apart from the simulated daemons'), in microseconds.
//   bb-qos-sim --controller IP:PORT --clients N [--jobs J] [--seconds S]
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "fs/base/tcp.h"
#include "qos/client.h"
#include "qos/controller.h"

namespace {

// Pops every complete message from `in`.
std::vector<std::string> Messages(std::string& in) {
  std::vector<std::string> out;
  for (;;) {
    auto body = bb::qos::PopMessage(&in);
    if (!body || !*body) return out;
    out.push_back(std::move(**body));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-qos-sim: simulated daemons for the QoS controller"};
  std::string controller = "127.0.0.1:7600";
  int clients = 10, jobs = 4;
  double seconds = 10;
  std::string key_file;
  app.add_option("--controller", controller, "IP:PORT");
  app.add_option("--key-file", key_file, "the cluster key the controller was given")->required();
  app.add_option("--clients", clients, "simulated daemons");
  app.add_option("--jobs", jobs, "jobs each reports");
  app.add_option("--seconds", seconds, "how long to run");
  CLI11_PARSE(app, argc, argv);
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
  auto key = bb::auth::LoadKey(key_file);
  if (!key) return std::fprintf(stderr, "bb-qos-sim: %s\n", key.error().message().c_str()), 1;
  std::string host = controller.substr(0, controller.rfind(':'));
  int port = std::atoi(controller.c_str() + controller.rfind(':') + 1);
  std::vector<pollfd> fds;
  std::vector<std::string> in(static_cast<size_t>(clients));
  nlohmann::json usage = nlohmann::json::object();
  bb::qos::NodeUsage own;
  for (int j = 0; j < jobs; ++j) {
    usage["job" + std::to_string(j)] = {{"metadata", 100.0 + j}, {"data", 1e6}};
    own["job" + std::to_string(j)] = {100.0 + j, 1e6};
  }
  for (int i = 0; i < clients; ++i) {
    auto connected = bb::qos::ConnectController(host, static_cast<uint16_t>(port), *key, 5000);
    if (!connected) {
      return std::fprintf(stderr, "bb-qos-sim: client %d: %s\n", i, connected.error().message().c_str()), 1;
    }
    int fd = *connected;
    (void)bb::SendAll(fd, bb::qos::Frame({{"type", "hello"}, {"node", "sim" + std::to_string(i)}}), 5000);
    fds.push_back({fd, POLLIN, 0});
  }
  uint64_t rates = 0;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      char buf[65536];
      ssize_t n = ::recv(fds[i].fd, buf, sizeof buf, 0);
      if (n <= 0) return std::fprintf(stderr, "bb-qos-sim: the controller closed client %zu\n", i), 1;
      in[i].append(buf, static_cast<size_t>(n));
      for (const auto& body : Messages(in[i])) {
        auto m = nlohmann::json::parse(body, nullptr, false);
        if (m.is_discarded()) continue;
        if (m["type"] == "collect") {
          (void)bb::SendAll(fds[i].fd,
                            bb::qos::Frame({{"type", "report"}, {"node", "sim" + std::to_string(i)}, {"usage", usage}}),
                            5000);
        } else if (m["type"] == "shares") {
          // As a daemon does: its own limits from the one message every daemon gets.
          if (bb::qos::LimitsFromShares(m, &own)) ++rates;
        }
      }
    }
  }
  // The controller's own account of its cycles.
  auto st = bb::qos::AskController(host, static_cast<uint16_t>(port), *key, {{"type", "status"}}, 5000);
  if (!st) return std::fprintf(stderr, "bb-qos-sim: %s\n", st.error().ToString().c_str()), 1;
  std::printf("%d,%d,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", clients, jobs, static_cast<unsigned long long>(rates),
              (*st)["cycle_us_mean"].get<double>(), (*st)["cycle_us_max"].get<double>(),
              (*st)["compute_us_mean"].get<double>(), (*st)["compute_us_max"].get<double>(),
              (*st)["policy_us_mean"].get<double>(), (*st)["cpu_us_mean"].get<double>());
  for (auto& p : fds) ::close(p.fd);
  return 0;
}
