#include "fs/core/data/fan_out.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace bb::fs {
namespace {

using namespace std::chrono_literals;

// Tasks that succeed only when `n` of them are running at the same moment (each waits up to
// 5 s for the others): they pass only if the batch really runs them at once.
std::vector<FanOut::Task> Rendezvous(int n, std::mutex& mu, std::condition_variable& cv, int& arrived) {
  std::vector<FanOut::Task> tasks;
  for (int i = 0; i < n; ++i) {
    tasks.push_back([&, n]() -> Status {
      std::unique_lock lock(mu);
      ++arrived;
      cv.notify_all();
      if (!cv.wait_for(lock, 5s, [&] { return arrived >= n; })) return Status(ETIMEDOUT, "ran alone");
      return Status::Ok();
    });
  }
  return tasks;
}

TEST_CASE("a batch runs its tasks at the same time", "[core]") {
  FanOut pool(3);
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  auto tasks = Rendezvous(4, mu, cv, arrived);  // 3 helpers + the caller
  Status s = pool.Run(tasks);
  CHECK(s.ok());
  CHECK(arrived == 4);
}

TEST_CASE("without helpers the caller runs every task, in order", "[core]") {
  FanOut pool(0);
  std::vector<int> order;
  std::vector<FanOut::Task> tasks;
  for (int i = 0; i < 5; ++i)
    tasks.push_back([&order, i] {
      order.push_back(i);
      return Status::Ok();
    });
  REQUIRE(pool.Run(tasks).ok());
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
  std::vector<FanOut::Task> none;
  CHECK(pool.Run(none).ok());
}

TEST_CASE("the first failure in task order is returned, after every task ran", "[core]") {
  FanOut pool(2);
  std::atomic<int> ran{0};
  std::vector<FanOut::Task> tasks;
  for (int i = 0; i < 6; ++i) {
    tasks.push_back([&ran, i]() -> Status {
      ran++;
      if (i == 2) return Status(EIO, "task 2");
      if (i == 4) return Status(ENOSPC, "task 4");
      return Status::Ok();
    });
  }
  Status s = pool.Run(tasks);
  CHECK(s.code() == EIO);
  CHECK(s.message().find("task 2") != std::string::npos);
  CHECK(ran == 6);
}

TEST_CASE("many callers at once share a small pool without waiting on each other", "[core]") {
  FanOut pool(1);
  std::vector<std::thread> callers;
  std::atomic<int> done{0}, failed{0};
  for (int c = 0; c < 8; ++c) {
    callers.emplace_back([&] {
      for (int b = 0; b < 500; ++b) {
        std::atomic<int> count{0};
        std::vector<FanOut::Task> tasks(3, [&count] {
          count++;
          return Status::Ok();
        });
        if (!pool.Run(tasks).ok() || count != 3) failed++;
        done++;
      }
    });
  }
  for (auto& t : callers) t.join();
  CHECK(done == 4000);
  CHECK(failed == 0);
}

}  // namespace
}  // namespace bb::fs
