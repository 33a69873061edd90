// Owner and group of new entries on a cluster of in-process nodes (test_cluster.h), in every
// layout mode, on the paths that make an entry at its owner and on the one that makes it here
// first (streams of small files).
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kModes;
using testing::kUser;

constexpr uint32_t kGroup = 500;  // the shared directory's group; the callers' own is 1000

// Makes `n` files in directory `dir` on node `i` as `who`, each looked up first as the kernel
// does; returns the group of each.
std::vector<uint32_t> MakeFiles(Cluster& c, uint32_t i, uint64_t dir, int n, const Caller& who) {
  std::vector<uint32_t> groups;
  for (int k = 0; k < n; ++k) {
    std::string name = "f" + std::to_string(k);
    REQUIRE(c.fs(i).Lookup(dir, name, who.pid).error().code() == ENOENT);
    auto made = c.fs(i).Create(dir, name, 0664, O_WRONLY, who);
    REQUIRE(made.has_value());
    groups.push_back(made->first.md.gid);
    REQUIRE(c.fs(i).Release(made->second).ok());
  }
  return groups;
}

TEST_CASE("a set-group-ID directory passes its group on to what is made in it, and the bit to directories",
          "[ownership]") {
  const Caller stream{1000, 1000, 42};  // from its second file on, a stream of small files
  for (const auto& m : kModes) {
    const LayoutMode mode = m.mode;
    INFO(m.name);
    FileSystemOptions o = Cluster::Defaults();
    o.attr_cache_ns = 5'000'000'000;  // owners keep callbacks: stream names are reserved
    Cluster c(4, o);
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{mode, 0.25}, kChunk}, kUser).ok());
    const uint64_t ws = c.Walk(0, "/ws");
    auto shared = c.fs(0).Mkdir(ws, "shared", 02775, kUser);
    REQUIRE(shared.has_value());
    CHECK(shared->md.gid == kUser.gid);  // the workspace has no S_ISGID
    SetAttrRequest chgrp;
    chgrp.gid = kGroup;
    REQUIRE(c.fs(0).SetAttr(shared->ino, chgrp, nullptr).has_value());
    auto plain = c.fs(0).Mkdir(ws, "plain", 0775, kUser);
    REQUIRE(plain.has_value());

    for (uint32_t gid : MakeFiles(c, 0, shared->ino, 6, stream)) CHECK(gid == kGroup);
    for (uint32_t gid : MakeFiles(c, 0, plain->ino, 3, stream)) CHECK(gid == stream.gid);

    auto sub = c.fs(0).Mkdir(shared->ino, "sub", 0755, kUser);
    REQUIRE(sub.has_value());
    CHECK(sub->md.gid == kGroup);
    CHECK((sub->md.mode & 07777) == 02755);
    auto fifo = c.fs(0).Mknod(shared->ino, "fifo", S_IFIFO | 0644, 0, kUser);
    REQUIRE(fifo.has_value());
    CHECK(fifo->md.gid == kGroup);
    CHECK((fifo->md.mode & S_ISGID) == 0);  // only directories take the bit
    auto link = c.fs(0).Symlink(shared->ino, "link", "f0", kUser);
    REQUIRE(link.has_value());
    CHECK(link->md.gid == kGroup);
    auto nested = c.fs(0).Create(sub->ino, "deeper", 0644, O_WRONLY, kUser);  // the bit went on with "sub"
    REQUIRE(nested.has_value());
    CHECK(nested->first.md.gid == kGroup);
    REQUIRE(c.fs(0).Release(nested->second).ok());
    auto inplain = c.fs(0).Mkdir(plain->ino, "sub", 0755, kUser);
    REQUIRE(inplain.has_value());
    CHECK(inplain->md.gid == kUser.gid);
    CHECK((inplain->md.mode & S_ISGID) == 0);

    // What another node sees (mode 1's namespace is the maker's own).
    const uint32_t other = mode == LayoutMode::kNodeLocal ? 0 : 2;
    const uint64_t there = c.Walk(other, "/ws/shared");
    for (const char* name : {"f0", "f5", "sub", "fifo"}) {
      auto seen = c.fs(other).Lookup(there, name);
      REQUIRE(seen.has_value());
      CHECK(seen->md.gid == kGroup);
    }
  }
}

}  // namespace
}  // namespace bb::fs
