// Round-trip time and bulk bandwidth of the transport, to compare with ucx_perftest.
//
//   bb-transport-bench --serve IP:PORT --key-file F [--inline] [--poll-spin US]
//   bb-transport-bench --connect IP:PORT --key-file F [--iterations N] [--messages M] [--size BYTES]
//                      [--threads T] [--poll-spin US] [--connects C]
// The client prints one line: "rtt_us <mean> <median> bw_MBps <rate> rtt_p90_p99_us <p90> <p99>
// connect_us <median> <min> <max>"
// — connect: C times, a new client transport's first call (its connection set-up: the gate's
// key handshake, the UCX endpoint, the first round trip);
// — the round trip of N empty requests, one at a time, then the bandwidth of M requests
// carrying SIZE bytes each, sent from T threads at once (MB = 10^6 bytes, as ucx_perftest
// reports).
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "transport/transport.h"

using namespace bb::transport;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  CLI::App app{"bb-transport-bench"};
  std::string serve, connect;
  int iterations = 20000, messages = 2000, threads = 8;
  size_t size = 512 * 1024;
  app.add_option("--serve", serve, "IP:PORT to serve on");
  app.add_option("--connect", connect, "IP:PORT of the server");
  app.add_option("--iterations", iterations, "empty requests for the round trip");
  app.add_option("--messages", messages, "SIZE-byte requests for the bandwidth");
  app.add_option("--size", size);
  app.add_option("--threads", threads);
  bool inline_ops = false;
  app.add_flag("--inline", inline_ops, "server: answer on the progress thread (ServedOn::kDrivingThread)");
  int poll_spin_us = static_cast<int>(TransportOptions{}.poll_spin.count());
  std::string key_file;
  int connects = 20;
  app.add_option("--key-file", key_file, "the cluster key (bbctl key new FILE)")->required();
  app.add_option("--connects", connects, "connections set up one after another, for their time");
  app.add_option("--poll-spin", poll_spin_us, "TransportOptions::poll_spin, µs (0 = never poll)");
  CLI11_PARSE(app, argc, argv);
  auto key = bb::auth::LoadKey(key_file);
  if (!key) return std::fprintf(stderr, "%s\n", key.error().message().c_str()), 1;
  auto split = [](const std::string& s) {
    size_t c = s.rfind(':');
    return std::make_pair(s.substr(0, c), static_cast<uint16_t>(std::stoi(s.substr(c + 1))));
  };
  if (!serve.empty()) {
    auto [host, port] = split(serve);
    TransportOptions o;
    o.key = *key;
    o.serve_tools = true;
    o.poll_spin = std::chrono::microseconds(poll_spin_us);
    o.listen_host = host;
    o.listen_port = port;
    if (inline_ops) o.served_on = [](uint16_t) { return ServedOn::kDrivingThread; };
    auto t =
        StartUcxTransport(o, [](NodeId, uint16_t, std::string_view, std::string_view, ServedOn) { return Response{}; });
    if (!t) {
      std::fprintf(stderr, "%s\n", t.error().ToString().c_str());
      return 1;
    }
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    int sig;
    sigwait(&set, &sig);
    return 0;
  }
  auto [host, port] = split(connect);
  TransportOptions client_options;
  client_options.key = *key;
  client_options.poll_spin = std::chrono::microseconds(poll_spin_us);
  std::vector<double> setups;
  for (int i = 0; i < connects; ++i) {
    auto fresh = StartUcxTransport(client_options, nullptr);
    if (!fresh) return 1;
    auto begin = Clock::now();
    (*fresh)->SetPeer(1, host, port);
    if (!(*fresh)->Call(1, 1, "", {}, {})) return 1;
    setups.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
  }
  std::sort(setups.begin(), setups.end());
  auto t = StartUcxTransport(client_options, nullptr);
  if (!t) return 1;
  (*t)->SetPeer(1, host, port);
  for (int i = 0; i < 100; ++i) (void)(*t)->Call(1, 1, "", {}, {});  // connect and warm up
  std::vector<double> rtts;
  rtts.reserve(iterations);
  for (int i = 0; i < iterations; ++i) {
    auto start = Clock::now();
    auto r = (*t)->Call(1, 1, "", {}, {});
    if (!r) return 1;
    rtts.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  double mean = 0;
  for (double v : rtts) mean += v;
  mean /= rtts.size();
  std::sort(rtts.begin(), rtts.end());
  double median = rtts[rtts.size() / 2];
  double p90 = rtts[rtts.size() * 9 / 10];
  double p99 = rtts[rtts.size() * 99 / 100];
  std::vector<char> buf(size, 'b');
  std::atomic<int> next{0};
  auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int w = 0; w < threads; ++w) {
    workers.emplace_back([&] {
      while (next.fetch_add(1) < messages) (void)(*t)->Call(1, 1, "", {buf.data(), buf.size()}, {});
    });
  }
  for (auto& w : workers) w.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  double mbps = static_cast<double>(messages) * size / secs / 1e6;
  std::printf("rtt_us %.2f %.2f bw_MBps %.1f rtt_p90_p99_us %.2f %.2f connect_us %.0f %.0f %.0f\n", mean, median, mbps,
              p90, p99, setups.empty() ? 0.0 : setups[setups.size() / 2], setups.empty() ? 0.0 : setups.front(),
              setups.empty() ? 0.0 : setups.back());
  return 0;
}
