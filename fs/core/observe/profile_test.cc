// The I/O profile of a workspace, counted on a cluster of in-process nodes: known operations
// give exactly the counters they should, on the nodes that did them; unprofiled workspaces and
// a stopped profile count nothing.
#include "fs/core/observe/profile.h"

#include <fcntl.h>

#include <catch2/catch.hpp>

#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kUser;

const FileProfile* FindFile(const ProfileSnapshot& p, const std::string& path) {
  for (const auto& [id, f] : p.files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

TEST_CASE("Darshan's size bins", "[profile]") {
  CHECK(SizeBin(0) == 0);
  CHECK(SizeBin(99) == 0);
  CHECK(SizeBin(100) == 1);
  CHECK(SizeBin(4096) == 2);
  CHECK(SizeBin(47008) == 3);
  CHECK(SizeBin(512 * 1024) == 4);
  CHECK(SizeBin(1 << 20) == 5);
  CHECK(SizeBin(8 << 20) == 6);
  CHECK(SizeBin(64ULL << 20) == 7);
  CHECK(SizeBin(512ULL << 20) == 8);
  CHECK(SizeBin(2ULL << 30) == 9);
}

TEST_CASE("a profiled workspace counts what each node's processes did, per file and directory", "[profile]") {
  Cluster c(4);
  REQUIRE(c.fs(0).CreateWorkspace("job", WorkspaceSpec{{LayoutMode::kHashed}, testing::kChunk}, kUser).ok());
  REQUIRE(c.fs(0).CreateWorkspace("other", WorkspaceSpec{{LayoutMode::kHashed}, testing::kChunk}, kUser).ok());
  for (uint32_t n = 0; n < 4; ++n) c.fs(n).profiles().Start("job", c.clock.WallNs());
  // Node 1 writes 10 x 4096 bytes and 5 x 100 bytes, sequentially, to one file.
  uint64_t parent = c.Walk(1, "/job");
  Caller p1{1000, 1000, 41};
  auto cr = c.fs(1).Create(parent, "data", 0644, O_RDWR, p1);
  REQUIRE(cr.has_value());
  std::string page(4096, 'x'), small(100, 'y');
  uint64_t at = 0;
  for (int i = 0; i < 10; ++i, at += 4096) REQUIRE(c.fs(1).Write(cr->second, at, page).has_value());
  for (int i = 0; i < 5; ++i, at += 100) REQUIRE(c.fs(1).Write(cr->second, at, small).has_value());
  REQUIRE(c.fs(1).Fsync(cr->second).ok());
  REQUIRE(c.fs(1).Release(cr->second).ok());
  // Node 2 reads it whole, twice (two opens), and stats it.
  for (int i = 0; i < 2; ++i) REQUIRE(c.Read(2, "/job", "data").has_value());
  auto e = c.fs(2).Lookup(c.Walk(2, "/job"), "data");
  REQUIRE(c.fs(2).GetAttr(e->ino).has_value());
  // Nodes 0 and 3 make 30 files in one directory that node 0 made.
  REQUIRE(c.fs(0).Mkdir(c.Walk(0, "/job"), "storm", 0755, kUser).has_value());
  for (int i = 0; i < 30; ++i) c.Write(i % 2 == 0 ? 0 : 3, "/job/storm", "f" + std::to_string(i), "");
  // Work outside the profiled workspace is not counted.
  c.Write(1, "/other", "x", "zz");

  auto p1s = c.fs(1).profiles().Stop("job");
  auto p2s = c.fs(2).profiles().Stop("job");
  auto p0s = c.fs(0).profiles().Stop("job");
  auto p3s = c.fs(3).profiles().Stop("job");
  REQUIRE(p1s);
  REQUIRE(p2s);
  const FileProfile* w = FindFile(*p1s, "/data");
  REQUIRE(w != nullptr);
  CHECK(w->created);
  CHECK(w->opens == 1);
  CHECK(w->writes == 15);
  CHECK(w->bytes_written == 10 * 4096 + 500);
  CHECK(w->write_sizes[2] == 10);  // 1K-10K
  CHECK(w->write_sizes[1] == 5);   // 100-1K
  CHECK(w->consec_writes == 15);
  CHECK(w->seq_writes == 15);
  CHECK(w->seeks == 0);
  CHECK(w->fsyncs == 1);
  CHECK(w->max_offset == 10 * 4096 + 500);
  CHECK(w->writers == std::set<pid_t>{41});
  CHECK(w->reads == 0);
  const FileProfile* r = FindFile(*p2s, "/data");
  REQUIRE(r != nullptr);
  CHECK_FALSE(r->created);
  CHECK(r->opens == 2);
  CHECK(r->reads == 2);
  CHECK(r->bytes_read == 2 * (10 * 4096 + 500));
  CHECK(r->read);
  CHECK(r->stat);
  CHECK(r->stats == 1);
  CHECK(r->writes == 0);
  REQUIRE(p0s);
  const DirProfile& storm0 = p0s->dirs.at("/storm");
  CHECK(storm0.created);
  CHECK(storm0.creates == 15);
  CHECK(storm0.made_entries);
  CHECK(p3s->dirs.at("/storm").creates == 15);
  CHECK_FALSE(p3s->dirs.at("/storm").created);
  for (const auto& p : {*p0s, *p1s, *p2s, *p3s}) {
    for (const auto& [id, f] : p.files) CHECK(f.path.rfind("/x", 0) != 0);
  }
  // Stopped: nothing more is counted, and a second stop has nothing.
  c.Write(1, "/job", "late", "z");
  CHECK_FALSE(c.fs(1).profiles().Stop("job").has_value());
  CHECK_FALSE(c.fs(1).profiles().active());
}

TEST_CASE("without a profile nothing is counted", "[profile]") {
  Cluster c(2);
  REQUIRE(c.fs(0).CreateWorkspace("job", WorkspaceSpec{{LayoutMode::kHashed}, testing::kChunk}, kUser).ok());
  c.Write(1, "/job", "f", "abc");
  CHECK_FALSE(c.fs(1).profiles().active());
  CHECK_FALSE(c.fs(1).profiles().Snapshot("job").has_value());
  CHECK_FALSE(c.fs(1).profiles().Stop("job").has_value());
}

TEST_CASE("a file open across the profile's stop counts nothing after it, also when profiling starts again",
          "[profile]") {
  Cluster c(1);
  REQUIRE(c.fs(0).CreateWorkspace("job", WorkspaceSpec{{LayoutMode::kHashed}, testing::kChunk}, kUser).ok());
  c.fs(0).profiles().Start("job", c.clock.WallNs());
  Caller p{1000, 1000, 7};
  auto cr = c.fs(0).Create(c.Walk(0, "/job"), "log", 0644, O_RDWR, p);
  REQUIRE(cr.has_value());
  std::string line(64, 'l');
  REQUIRE(c.fs(0).Write(cr->second, 0, line).has_value());
  auto first = c.fs(0).profiles().Stop("job");
  REQUIRE(first);
  const FileProfile* f = FindFile(*first, "/log");
  REQUIRE(f != nullptr);
  CHECK(f->writes == 1);
  // Written after the stop, then after a new start: the open file's old profile is gone.
  REQUIRE(c.fs(0).Write(cr->second, 64, line).has_value());
  c.fs(0).profiles().Start("job", c.clock.WallNs());
  REQUIRE(c.fs(0).Write(cr->second, 128, line).has_value());
  REQUIRE(c.fs(0).Fsync(cr->second).ok());
  REQUIRE(c.fs(0).Release(cr->second).ok());
  auto second = c.fs(0).profiles().Stop("job");
  REQUIRE(second);
  CHECK(FindFile(*second, "/log") == nullptr);
  CHECK(first->files.size() == 1);
}

}  // namespace
}  // namespace bb::fs
