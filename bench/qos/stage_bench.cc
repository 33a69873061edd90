// bb-stage-bench: throughput of the QoS stage with no throttling — N threads submitting
// requests on their jobs' unlimited channels (each runs at once, inline), ops/s over all threads.
//   bb-stage-bench [--threads 1,2,4,...] [--seconds S] [--jobs J]
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "qos/stage.h"

int main(int argc, char** argv) {
  CLI::App app{"bb-stage-bench: QoS stage throughput without throttling"};
  std::vector<int> threads = {1, 2, 4, 8, 16, 32, 64};
  double seconds = 2;
  int jobs = 4;
  app.add_option("--threads", threads, "thread counts to run")->delimiter(',');
  app.add_option("--seconds", seconds, "seconds per run");
  app.add_option("--jobs", jobs, "jobs the threads are spread over");
  CLI11_PARSE(app, argc, argv);
  bb::SystemClock clock;
  std::printf("threads,ops_per_s\n");
  for (int n : threads) {
    bb::qos::Stage stage(&clock, 2);
    std::vector<bb::qos::Stage::Channel*> ch;
    for (int j = 0; j < jobs; ++j) ch.push_back(stage.Find("job" + std::to_string(j), bb::qos::Class::kMetadata));
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> total{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < n; ++t) {
      ts.emplace_back([&, t] {
        uint64_t done = 0;
        auto* c = ch[t % jobs];
        while (!stop.load(std::memory_order_relaxed)) {
          stage.Submit(c, 1, [&done] { ++done; });
        }
        total += done;
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& t : ts) t.join();
    std::printf("%d,%.0f\n", n, static_cast<double>(total.load()) / seconds);
    std::fflush(stdout);
  }
  return 0;
}
