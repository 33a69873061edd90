#include "fs/daemon/hosts_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "fs/base/temp_dir.h"

namespace bb::fs {
namespace {

TEST_CASE("nodes publish concurrently, ids are the sorted order, a restart replaces its line", "[hosts]") {
  TempDir dir("bb-hosts");
  std::string hosts = dir.path + "/hosts";
  std::vector<std::thread> threads;
  for (int i = 7; i >= 0; --i) {
    threads.emplace_back([&, i] {
      REQUIRE(PublishHost(hosts, {"node" + std::to_string(i), "198.18.0." + std::to_string(i + 1),
                                  static_cast<uint16_t>(7000 + i)})
                  .ok());
    });
  }
  for (auto& t : threads) t.join();
  auto read = ReadHosts(hosts);
  REQUIRE(read.has_value());
  REQUIRE(read->size() == 8);
  for (int i = 0; i < 8; ++i) CHECK((*read)[i].name == "node" + std::to_string(i));
  REQUIRE(PublishHost(hosts, {"node3", "198.18.0.99", 7100}).ok());
  read = ReadHosts(hosts);
  REQUIRE(read->size() == 8);
  CHECK((*read)[3] == HostEntry{"node3", "198.18.0.99", 7100});
  auto all = WaitForHosts(hosts, 8, std::chrono::milliseconds(100));
  CHECK(all.has_value());
  auto too_many = WaitForHosts(hosts, 4, std::chrono::milliseconds(100));
  CHECK(too_many.error().code() == EINVAL);
  auto too_few = WaitForHosts(hosts, 9, std::chrono::milliseconds(200));
  CHECK(too_few.error().code() == ETIMEDOUT);
  CHECK_THAT(too_few.error().message(), Catch::Contains("saw 8"));
}

TEST_CASE("malformed hosts files name the line", "[hosts]") {
  TempDir dir("bb-hosts");
  std::string hosts = dir.path + "/hosts";
  struct Row {
    const char* text;
    const char* want;
  };
  const Row rows[] = {
      {"a 1.2.3.4:5\nb\n", ":2: expected"},
      {"a 1.2.3.4:5 extra\n", ":1: expected"},
      {"a host:5\n", ":1: 'host' is not an IPv4 address"},
      {"a 1.2.3.4:0\n", ":1: '0' is not a port number"},
      {"a 1.2.3.4:5\na 1.2.3.4:6\n", "'a' is listed twice"},
  };
  for (const Row& r : rows) {
    std::ofstream(hosts) << r.text;
    auto h = ReadHosts(hosts);
    REQUIRE_FALSE(h.has_value());
    CHECK_THAT(h.error().message(), Catch::Contains(r.want));
  }
  CHECK(ReadHosts(dir.path + "/none").error().code() == ENOENT);
}

}  // namespace
}  // namespace bb::fs
