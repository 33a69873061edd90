// What the probe's counters add to each file-system operation, without FUSE, the network or
// another process in the way: 4 in-process nodes (fs/core/test_cluster.h, in-memory stores, a
// hashed workspace), node 0 making, writing, looking up, stat'ing, reading and removing FILES
// files, with the workspace's profile off and on in alternating rounds.
//
//   FILES=2000 ROUNDS=15 build/bin/bb-profile-bench   (prints ns per operation, off and on)
//
// The absolute difference in ns per operation is what --profile costs a daemon per request; set
// against a daemon's CPU per request on a mount (bench/results/profile_cost.md) it bounds the
// relative cost from above, since a request on a mount does all of this and more.
#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kUser;

int Flag(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// One round: every operation on FILES files; returns (ns, operations).
std::pair<double, double> Round(Cluster& c, int files, int round) {
  std::string page(4096, 'p');
  char buf[4096];
  uint64_t dir = c.Walk(0, "/job");
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < files; ++i) {
    std::string name = "f" + std::to_string(round) + "." + std::to_string(i);
    auto cr = c.fs(0).Create(dir, name, 0644, O_RDWR, kUser);
    REQUIRE(cr.has_value());
    REQUIRE(c.fs(0).Write(cr->second, 0, page).has_value());
    REQUIRE(c.fs(0).Read(cr->second, 0, buf).has_value());
    REQUIRE(c.fs(0).Release(cr->second).ok());
    auto e = c.fs(0).Lookup(dir, name);
    REQUIRE(e.has_value());
    REQUIRE(c.fs(0).GetAttr(e->ino).has_value());
    REQUIRE(c.fs(0).Unlink(dir, name).ok());
    c.fs(0).Forget(e->ino, 2);
  }
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  return {ns, 7.0 * files};  // create, write, read, release, lookup, getattr, unlink
}

TEST_CASE("profile hooks: ns per operation, off and on", "[bench]") {
  int files = Flag("FILES", 2000), rounds = Flag("ROUNDS", 15);
  Cluster c(4);
  REQUIRE(c.fs(0).CreateWorkspace("job", WorkspaceSpec{{LayoutMode::kHashed}, testing::kChunk}, kUser).ok());
  (void)Round(c, files, -1);  // warm the stores' maps and the allocator
  std::vector<double> off, on, diff;
  for (int r = 0; r < rounds; ++r) {
    double per[2];
    for (int k = 0; k < 2; ++k) {
      bool profile = (r % 2 == 0) == (k == 1);  // alternate which goes first
      if (profile) c.fs(0).profiles().Start("job", c.clock.WallNs());
      auto [ns, ops] = Round(c, files, r * 2 + k);
      if (profile) REQUIRE(c.fs(0).profiles().Stop("job"));
      per[profile] = ns / ops;
    }
    off.push_back(per[0]);
    on.push_back(per[1]);
    diff.push_back(per[1] - per[0]);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("files %d, rounds %d (7 operations per file)\n", files, rounds);
  std::printf("profile off: %.0f ns per operation (median; %.0f-%.0f)\n", median(off),
              *std::min_element(off.begin(), off.end()), *std::max_element(off.begin(), off.end()));
  std::printf("profile on:  %.0f ns per operation (median; %.0f-%.0f)\n", median(on),
              *std::min_element(on.begin(), on.end()), *std::max_element(on.begin(), on.end()));
  std::printf("on - off, paired: %.0f ns per operation (median; %.0f to %.0f)\n", median(diff),
              *std::min_element(diff.begin(), diff.end()), *std::max_element(diff.begin(), diff.end()));
}

}  // namespace
}  // namespace bb::fs
