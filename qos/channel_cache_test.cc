#include "qos/channel_cache.h"

#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "qos/fake_proc.h"

namespace bb::qos {
namespace {

using namespace std::string_literals;
constexpr int64_t kMs = 1'000'000;

TEST_CASE("a process's channels are remembered for the cache's lifetime, then looked up again", "[qos][stage]") {
  testing::FakeProc proc;
  ManualClock clock;
  proc.Process(10, 100, "BB_JOB_ID=a\0"s, "");
  JobResolver jobs(&clock, /*trust_environment=*/true, proc.root, /*recheck_ns=*/0);
  Stage stage(&clock, 0);
  ChannelCache cache(&stage, &jobs, &clock, 250 * kMs);
  Stage::Channel* meta = cache.Find(10, 1000, Class::kMetadata);
  CHECK(meta == stage.Find("a", Class::kMetadata));
  CHECK(cache.Find(10, 1000, Class::kData) == stage.Find("a", Class::kData));
  // The pid is reused by a process of another job: the cache answers as before until it expires.
  proc.Process(10, 200, "BB_JOB_ID=b\0"s, "");
  CHECK(cache.Find(10, 1000, Class::kMetadata) == meta);
  clock.Advance(251 * kMs);
  CHECK(cache.Find(10, 1000, Class::kMetadata) == stage.Find("b", Class::kMetadata));
  // Another thread has slots of its own, and a second cache does not see the first one's.
  Stage::Channel* other = nullptr;
  std::thread([&] { other = cache.Find(10, 1000, Class::kMetadata); }).join();
  CHECK(other == stage.Find("b", Class::kMetadata));
  Stage stage2(&clock, 0);
  ChannelCache cache2(&stage2, &jobs, &clock);
  CHECK(cache2.Find(10, 1000, Class::kMetadata) == stage2.Find("b", Class::kMetadata));
}

}  // namespace
}  // namespace bb::qos
