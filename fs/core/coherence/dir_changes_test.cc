#include "fs/core/coherence/dir_changes.h"

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kUser;

TEST_CASE("dir changes: coalesced per directory, latest time, summed count, sent once", "[core]") {
  std::map<std::string, std::vector<DirChanges::Change>> sent;
  {
    DirChanges d([&](const std::string& dir, const DirChanges::Change& c) { sent[dir].push_back(c); },
                 std::chrono::milliseconds(0));
    d.Note("/a", 10, 1);
    d.Note("/a", 30, 0);
    d.Note("/a", 20, -1);
    d.Note("/a", 25, 1);
    d.Note("/b", 5, 0);
    CHECK(d.pending() == 2);
    auto a = d.Pending("/a");
    REQUIRE(a.has_value());
    CHECK(a->time_ns == 30);
    CHECK(a->subdirs == 1);
    CHECK_FALSE(d.Pending("/c").has_value());
    d.FlushAll();
    d.FlushAll();  // nothing pending any more: nothing sent twice
    REQUIRE(sent["/a"].size() == 1);
    CHECK(sent["/a"][0].time_ns == 30);
    CHECK(sent["/a"][0].subdirs == 1);
    REQUIRE(sent["/b"].size() == 1);
    CHECK(sent["/b"][0].time_ns == 5);
    d.Note("/c", 7, -1);
  }  // the destructor sends the rest
  REQUIRE(sent["/c"].size() == 1);
  CHECK(sent["/c"][0].subdirs == -1);
}

TEST_CASE("dir changes: the flusher sends within its interval, and sleeps while nothing is pending", "[core]") {
  std::atomic<int> sends{0};
  DirChanges d([&](const std::string&, const DirChanges::Change&) { sends++; }, std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(sends == 0);
  d.Note("/a", 1, 0);
  for (int i = 0; i < 200 && sends == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(sends == 1);
  CHECK(d.pending() == 0);
}

TEST_CASE("dir changes: a read that a send of its directory overlapped is read again, others are not", "[core]") {
  // The send of "/a" waits until the test lets it go: the owner has it or not, nobody knows.
  std::mutex mu;
  std::condition_variable cv;
  bool in_send = false, let_go = false;
  DirChanges d(
      [&](const std::string& dir, const DirChanges::Change&) {
        if (dir != "/a") return;
        std::unique_lock lock(mu);
        in_send = true;
        cv.notify_all();
        cv.wait(lock, [&] { return let_go; });
      },
      std::chrono::milliseconds(0));
  d.Note("/a", 10, 1);
  d.Note("/t", 50, 0);  // times only
  uint64_t before = d.Begin();
  auto a = d.After("/a", before);  // nothing sent since: the pending change is added
  REQUIRE(a.has_value());
  CHECK(a->subdirs == 1);
  CHECK(d.After("/b", before)->subdirs == 0);  // nothing pending: nothing to add

  std::thread flush([&] { d.FlushAll(); });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return in_send; });
  }
  uint64_t during = d.Begin();
  CHECK_FALSE(d.After("/a", before).has_value());  // taken after the read began: read again
  CHECK_FALSE(d.After("/a", during).has_value());  // still on its way
  CHECK(d.After("/b", during).has_value());        // not in that send
  auto times = d.After("/t", before);              // in it, with times only: added again, no reread
  REQUIRE(times.has_value());
  CHECK(times->time_ns == 50);
  CHECK(times->subdirs == 0);
  {
    std::lock_guard lock(mu);
    let_go = true;
  }
  cv.notify_all();
  flush.join();
  CHECK_FALSE(d.After("/a", before).has_value());  // the read may have missed what landed
  uint64_t after = d.Begin();
  auto landed = d.After("/a", after);  // a read begun after the landing has it: nothing to add
  REQUIRE(landed.has_value());
  CHECK(landed->subdirs == 0);

  // A read that began many flushes ago cannot be told apart: read again.
  for (int i = 0; i < 40; ++i) {
    d.Note("/c" + std::to_string(i), 1, 0);
    d.FlushAll();
  }
  CHECK_FALSE(d.After("/b", after).has_value());
  auto hold = d.HoldSends();
  CHECK(d.After("/b", d.Begin()).has_value());
}

void SendAll(Cluster& c) {
  for (uint32_t n = 0; n < c.members.size(); ++n) c.fs(n).SendDirChanges();
}

Metadata Attr(Cluster& c, uint32_t node, const std::string& dir) {
  auto e = c.fs(node).GetAttr(c.Walk(node, dir));
  REQUIRE(e.has_value());
  return e->md;
}

TEST_CASE("a directory's subdirectory count and times follow entries made and removed on any node", "[core]") {
  FileSystemOptions o = Cluster::Defaults();
  o.dir_change_ms = 0;  // sent only when a node reads the directory: every step is deterministic
  Cluster c(4, o);
  REQUIRE(c.fs(0).Mkdir(kRootFileId, "d", 0755, kUser).has_value());
  REQUIRE(c.fs(0).Mkdir(kRootFileId, "e", 0755, kUser).has_value());
  Metadata before = Attr(c, 0, "/d");
  CHECK(before.subdirs == 0);
  c.clock.Advance(1000);
  REQUIRE(c.fs(1).Mkdir(c.Walk(1, "/d"), "a", 0755, kUser).has_value());
  REQUIRE(c.fs(2).Mkdir(c.Walk(2, "/d"), "b", 0755, kUser).has_value());
  // Each node sees its own change at once (added to what the owner has); the others once it
  // is sent.
  CHECK(Attr(c, 1, "/d").subdirs == 1);
  CHECK(Attr(c, 2, "/d").subdirs == 1);
  CHECK(Attr(c, 3, "/d").subdirs == 0);
  CHECK(Attr(c, 1, "/d").mtime_ns > before.mtime_ns);
  CHECK(Attr(c, 3, "/d").mtime_ns == before.mtime_ns);
  SendAll(c);
  CHECK(Attr(c, 3, "/d").subdirs == 2);
  CHECK(Attr(c, 1, "/d").subdirs == 2);  // nothing counted twice
  Metadata after_mkdir = Attr(c, 3, "/d");
  CHECK(after_mkdir.mtime_ns > before.mtime_ns);
  CHECK(after_mkdir.ctime_ns > before.ctime_ns);
  // A file: the times move, the count does not.
  c.clock.Advance(1000);
  c.Write(3, "/d", "f", "x");
  SendAll(c);
  Metadata after_create = Attr(c, 3, "/d");
  CHECK(after_create.subdirs == 2);
  CHECK(after_create.mtime_ns > after_mkdir.mtime_ns);
  c.clock.Advance(1000);
  REQUIRE(c.fs(0).Unlink(c.Walk(0, "/d"), "f").ok());
  Metadata after_unlink = Attr(c, 0, "/d");  // node 0's own change: seen at once
  CHECK(after_unlink.mtime_ns == after_create.mtime_ns + 1000);
  // Rename a directory across parents; remove one.
  REQUIRE(c.fs(1).Rename(c.Walk(1, "/d"), "a", c.Walk(1, "/e"), "a", 0).ok());
  CHECK(Attr(c, 1, "/d").subdirs == 1);
  CHECK(Attr(c, 1, "/e").subdirs == 1);
  REQUIRE(c.fs(2).Rmdir(c.Walk(2, "/d"), "b").ok());
  SendAll(c);
  CHECK(Attr(c, 3, "/d").subdirs == 0);
  CHECK(Attr(c, 3, "/e").subdirs == 1);
  // The root (kept on every node) counts its subdirectories too, on every node.
  CHECK(Attr(c, 0, "/").subdirs == 2);
  CHECK(Attr(c, 3, "/").subdirs == 2);
}

TEST_CASE("with the flusher on, another node sees a change within the interval", "[core]") {
  Cluster c(2);  // the default interval (20 ms)
  REQUIRE(c.fs(0).Mkdir(kRootFileId, "d", 0755, kUser).has_value());
  REQUIRE(c.fs(0).Mkdir(c.Walk(0, "/d"), "sub", 0755, kUser).has_value());
  uint32_t seen = 0;
  for (int i = 0; i < 100 && seen != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    seen = Attr(c, 1, "/d").subdirs;
  }
  CHECK(seen == 1);
}

}  // namespace
}  // namespace bb::fs
