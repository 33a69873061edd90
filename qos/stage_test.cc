// The QoS stage and the job resolver, on a manual clock (no sleeping) and a fake procfs.
#include "qos/stage.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "qos/fake_proc.h"
#include "qos/job_identity.h"

namespace bb::qos {
namespace {

using testing::FakeProc;

constexpr int64_t kMs = 1'000'000;

TEST_CASE("an unlimited channel is a pass-through that still counts", "[qos][stage]") {
  ManualClock clock;
  int ran = 0;
  Stage stage(&clock, 0);
  auto* ch = stage.Find("A", Class::kData);
  for (int i = 0; i < 100; ++i) stage.Submit(ch, 4096, [&] { ++ran; });
  CHECK(ran == 100);
  auto usage = stage.TakeUsage();
  CHECK(usage.units[{"A", Class::kData}] == 409600);
  CHECK(stage.TakeUsage().units.empty());
  auto stats = stage.Stats();
  REQUIRE(stats.size() == 1);
  CHECK(stats[0].ops == 100);
  CHECK_FALSE(stats[0].limit.has_value());
}

TEST_CASE("the measured rate is the last full window's, and usage restarts at each take", "[qos][stage]") {
  ManualClock clock;
  Stage stage(&clock, 0, 1000 * kMs);
  auto* ch = stage.Find("A", Class::kMetadata);
  for (int i = 0; i < 300; ++i) stage.Submit(ch, 1, [] {});
  CHECK(stage.Stats()[0].rate == 0);  // no window has ended yet
  clock.Advance(1500 * kMs);
  stage.Submit(ch, 1, [] {});  // ends the window: 300 units in 1.5 s; counts in the next one
  CHECK(stage.Stats()[0].rate == Approx(200));
  for (int i = 0; i < 99; ++i) stage.Submit(ch, 1, [] {});
  clock.Advance(1000 * kMs);
  stage.Submit(ch, 1, [] {});
  CHECK(stage.Stats()[0].rate == Approx(100));
  CHECK(stage.TakeUsage().units[{"A", Class::kMetadata}] == 401);
  stage.Submit(ch, 7, [] {});
  CHECK(stage.TakeUsage().units[{"A", Class::kMetadata}] == 7);
  // A whole window without traffic: the rate reads 0 again.
  clock.Advance(2000 * kMs);
  CHECK(stage.Stats()[0].rate == 0);
}

TEST_CASE("a limited channel admits its rate, waiting requests run in order and never inline", "[qos][stage]") {
  ManualClock clock;
  std::vector<int> order;  // declared before the stage: it runs what still waits when it goes
  bool late_ran = false;
  int b_ran = 0;
  Stage stage(&clock, 0);
  stage.SetLimit("A", Class::kMetadata, Limit{100, 1});  // 100 ops/s, burst 1
  REQUIRE(stage.Stats().size() == 1);
  CHECK(stage.Stats()[0].limit == 100);
  auto* a = stage.Find("A", Class::kMetadata);
  auto* b = stage.Find("B", Class::kMetadata);
  for (int i = 0; i < 50; ++i) stage.Submit(a, 1, [&order, i] { order.push_back(i); });
  CHECK(order.size() == 1);  // the burst
  // Job B is not limited: it runs at once whatever A's queue holds.
  stage.Submit(b, 1, [&] { ++b_ran; });
  CHECK(b_ran == 1);
  CHECK(stage.Stats()[0].queued == 49);
  // 10 ms per token: after 250 ms, 25 more have run, in submission order.
  for (int step = 0; step < 25; ++step) {
    clock.Advance(10 * kMs);
    stage.Poll();
  }
  REQUIRE(order.size() == 26);
  for (int i = 0; i < 26; ++i) CHECK(order[i] == i);
  // A new request must queue behind the waiting ones even when a token is there.
  clock.Advance(10 * kMs);
  stage.Submit(a, 1, [&] { late_ran = true; });
  CHECK_FALSE(late_ran);
  auto stats = stage.Stats();
  CHECK(stats[0].waited == 25);
  CHECK(stats[0].wait_ms_max >= 240);
}

TEST_CASE("the achieved rate follows the limit over a long run, and rate changes apply", "[qos][stage]") {
  ManualClock clock;
  uint64_t done = 0;
  bool stop = false;
  std::function<void()> op;
  Stage stage(&clock, 0);
  stage.SetLimit("A", Class::kMetadata, Limit{2000, 0});
  auto* a = stage.Find("A", Class::kMetadata);
  // A closed loop of 64 outstanding requests, each resubmitting itself when it runs.
  op = [&] {
    ++done;
    if (!stop) stage.Submit(a, 1, op);
  };
  for (int i = 0; i < 64; ++i) stage.Submit(a, 1, op);
  uint64_t start = done;
  for (int t = 0; t < 5000; ++t) {  // 5 s in 1 ms steps
    clock.Advance(kMs);
    stage.Poll();
  }
  double rate = static_cast<double>(done - start) / 5.0;
  CHECK(rate == Approx(2000).epsilon(0.01));
  stage.SetLimit("A", Class::kMetadata, Limit{500, 0});
  start = done;
  for (int t = 0; t < 4000; ++t) {
    clock.Advance(kMs);
    stage.Poll();
  }
  CHECK(static_cast<double>(done - start) / 4.0 == Approx(500).epsilon(0.02));
  // Clearing the limit releases everything that waits.
  stop = true;
  stage.SetLimit("A", Class::kMetadata, std::nullopt);
  CHECK_FALSE(stage.Stats()[0].limit.has_value());
  CHECK(stage.Poll() > 0);
}

TEST_CASE("data limits count bytes, a request above the burst goes through on credit", "[qos][stage]") {
  ManualClock clock;
  int ran = 0;
  Stage stage(&clock, 0);
  stage.SetLimit("A", Class::kData, Limit{1 << 20, 64 << 10});  // 1 MiB/s, 64 KiB burst
  auto* d = stage.Find("A", Class::kData);
  stage.Submit(d, 1 << 20, [&] { ++ran; });  // 1 MiB at once: admitted, leaves a debt
  CHECK(ran == 1);
  stage.Submit(d, 4096, [&] { ++ran; });
  CHECK(ran == 1);
  clock.Advance(900 * kMs);
  stage.Poll();
  CHECK(ran == 1);  // the debt is not paid yet
  clock.Advance(110 * kMs);
  stage.Poll();
  CHECK(ran == 2);
}

TEST_CASE("a stage that goes away runs what still waits", "[qos][stage]") {
  ManualClock clock;
  int ran = 0;
  {
    Stage stage(&clock, 0);
    stage.SetLimit("A", Class::kMetadata, Limit{1, 1});
    auto* a = stage.Find("A", Class::kMetadata);
    for (int i = 0; i < 5; ++i) stage.Submit(a, 1, [&] { ++ran; });
    CHECK(ran == 1);
  }
  CHECK(ran == 5);
}

TEST_CASE("with threads, waiting requests are dispatched in the background", "[qos][stage]") {
  SystemClock clock;
  std::atomic<int> ran{0};
  Stage stage(&clock, 2);
  stage.SetLimit("A", Class::kMetadata, Limit{1000, 1});
  auto* a = stage.Find("A", Class::kMetadata);
  for (int i = 0; i < 20; ++i) stage.Submit(a, 1, [&] { ran++; });
  for (int i = 0; i < 500 && ran < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(ran == 20);
}

TEST_CASE("jobs come from the environment, then the cgroup, then the user, pid reuse is noticed", "[qos][stage]") {
  FakeProc proc;
  ManualClock clock;
  using namespace std::string_literals;
  proc.Process(10, 100, "PATH=/bin\0SLURM_JOB_ID=777\0BB_JOB_ID=mine\0"s, "0::/slurm/job777\n");
  proc.Process(11, 100, "SLURM_JOB_ID=778\0"s, "");
  proc.Process(12, 100, "HOME=/root\0"s, "0::/user.slice/session-3.scope\n");
  proc.Process(13, 100, ""s, "0::/\n");
  JobResolver jobs(&clock, /*trust_environment=*/true, proc.root, 1000 * kMs);
  CHECK(jobs.JobOf(10, 1000) == "mine");
  CHECK(jobs.JobOf(11, 1000) == "778");
  CHECK(jobs.JobOf(12, 1000) == "cgroup:/user.slice/session-3.scope");
  CHECK(jobs.JobOf(13, 1000) == "uid:1000");
  CHECK(jobs.JobOf(99, 42) == "uid:42");  // gone already
  // Pid 11 exits and the pid is reused by a process of another job.
  proc.Process(11, 555, "BB_JOB_ID=other\0"s, "");
  CHECK(jobs.JobOf(11, 1000) == "778");  // cached, not re-checked yet
  clock.Advance(1001 * kMs);
  CHECK(jobs.JobOf(11, 1000) == "other");
  CHECK(jobs.JobOf(10, 1000) == "mine");  // same start time: same job
}

TEST_CASE("strictly, a job is its Slurm cgroup's: a process cannot name another job in its environment",
          "[qos][stage]") {
  FakeProc proc;
  ManualClock clock;
  using namespace std::string_literals;
  proc.Process(20, 100, "BB_JOB_ID=other\0SLURM_JOB_ID=999\0"s,
               "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n");
  proc.Process(21, 100, "SLURM_JOB_ID=78\0"s, "4:memory:/slurm/uid_1000/job_78/step_batch\n0::/\n");
  proc.Process(22, 100, "BB_JOB_ID=mine\0"s, "0::/user.slice/session-3.scope\n");
  proc.Process(23, 100, "BB_JOB_ID=mine\0"s, "0::/bb-emu/job_5\n");
  proc.Process(24, 100, ""s, "0::/not_job_1/x\n");
  JobResolver strict(&clock, /*trust_environment=*/false, proc.root);
  CHECK(strict.JobOf(20, 1000) == "77");
  CHECK(strict.JobOf(21, 1000) == "78");
  CHECK(strict.JobOf(22, 1000) == "cgroup:/user.slice/session-3.scope");
  CHECK(strict.JobOf(23, 1000) == "5");
  CHECK(strict.JobOf(24, 1000) == "cgroup:/not_job_1/x");
  JobResolver trusting(&clock, /*trust_environment=*/true, proc.root);
  CHECK(trusting.JobOf(20, 1000) == "other");
  CHECK(trusting.JobOf(23, 1000) == "mine");
}

}  // namespace
}  // namespace bb::qos
