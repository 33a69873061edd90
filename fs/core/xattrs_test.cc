// Extended attributes on three in-process nodes: kept at the file's owner, read on every node,
// refused by their flags and limits, carried through renames, links and the last name's removal.
#include <sys/xattr.h>

#include <catch2/catch.hpp>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

struct ThreeNodes {
  explicit ThreeNodes(FileSystemOptions o = Cluster::Coherent()) : c(3, o) {
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{LayoutMode::kHashed, 0.25}, kChunk}, kUser).ok());
  }
  uint64_t Ino(uint32_t node, const std::string& name) {
    auto e = c.fs(node).Lookup(c.Walk(node, "/ws"), name);
    REQUIRE(e.has_value());
    return e->ino;
  }
  Cluster c;
};

TEST_CASE("extended attributes set on one node are read on the others, with their flags and limits", "[xattr]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "data");
  CHECK(t.c.fs(1).GetXattr(t.Ino(1, "f"), "user.a").error().code() == ENODATA);
  REQUIRE(t.c.fs(1).SetXattr(t.Ino(1, "f"), "user.a", "one", 0).ok());
  for (uint32_t node : {0u, 1u, 2u}) {
    INFO(node);
    uint64_t there = t.Ino(node, "f");
    CHECK(t.c.fs(node).GetXattr(there, "user.a").value() == "one");
    CHECK(t.c.fs(node).ListXattr(there).value() == std::string("user.a\0", 7));
  }
  CHECK(t.c.fs(2).SetXattr(t.Ino(2, "f"), "user.a", "two", XATTR_CREATE).code() == EEXIST);
  CHECK(t.c.fs(2).SetXattr(t.Ino(2, "f"), "user.b", "two", XATTR_REPLACE).code() == ENODATA);
  REQUIRE(t.c.fs(2).SetXattr(t.Ino(2, "f"), "user.a", "two", XATTR_REPLACE).ok());
  REQUIRE(t.c.fs(2).SetXattr(t.Ino(2, "f"), "user.b", std::string("\0bin\0", 5), XATTR_CREATE).ok());
  CHECK(t.c.fs(0).GetXattr(t.Ino(0, "f"), "user.a").value() == "two");
  CHECK(t.c.fs(0).GetXattr(t.Ino(0, "f"), "user.b").value() == std::string("\0bin\0", 5));
  CHECK(t.c.fs(1).ListXattr(t.Ino(1, "f")).value() == std::string("user.a\0user.b\0", 14));
  REQUIRE(t.c.fs(1).RemoveXattr(t.Ino(1, "f"), "user.a").ok());
  CHECK(t.c.fs(0).RemoveXattr(t.Ino(0, "f"), "user.a").code() == ENODATA);
  CHECK(t.c.fs(2).GetXattr(t.Ino(2, "f"), "user.a").error().code() == ENODATA);

  // Namespaces: trusted.* and security.* are kept (the kernel checks who may change them; it
  // removes security.capability itself in the name of a writer who could not), others are not.
  REQUIRE(t.c.fs(0).SetXattr(t.Ino(0, "f"), "trusted.t", "x", 0).ok());
  CHECK(t.c.fs(1).GetXattr(t.Ino(1, "f"), "trusted.t").value() == "x");
  REQUIRE(t.c.fs(0).SetXattr(t.Ino(0, "f"), "security.capability", "caps", 0).ok());
  REQUIRE(t.c.fs(2).RemoveXattr(t.Ino(2, "f"), "security.capability").ok());
  CHECK(t.c.fs(0).GetXattr(t.Ino(0, "f"), "security.capability").error().code() == ENODATA);
  CHECK(t.c.fs(0).SetXattr(t.Ino(0, "f"), "system.posix_acl_access", "x", 0).code() == EOPNOTSUPP);
  CHECK(t.c.fs(0).SetXattr(t.Ino(0, "f"), "user.c", "x", 4).code() == EINVAL);

  // Limits: a value of 64 KiB at most, 128 KiB for the file; the data and size are untouched.
  CHECK(t.c.fs(0).SetXattr(t.Ino(0, "f"), "user.big", std::string(kMaxXattrValue + 1, 'v'), 0).code() == E2BIG);
  REQUIRE(t.c.fs(0).SetXattr(t.Ino(0, "f"), "user.big", std::string(kMaxXattrValue, 'v'), 0).ok());
  REQUIRE(t.c.fs(0).SetXattr(t.Ino(0, "f"), "user.big2", std::string(60000, 'v'), 0).ok());
  CHECK(t.c.fs(1).SetXattr(t.Ino(1, "f"), "user.more", std::string(6000, 'v'), 0).code() == ENOSPC);
  REQUIRE(t.c.fs(1).SetXattr(t.Ino(1, "f"), "user.big", std::string(50000, 'w'), 0).ok());  // replacing frees
  REQUIRE(t.c.fs(1).SetXattr(t.Ino(1, "f"), "user.more", std::string(6000, 'v'), 0).ok());
  CHECK(t.c.Read(2, "/ws", "f").value() == "data");
}

TEST_CASE("extended attributes move with renames and links, and a change moves the change time", "[xattr]") {
  ThreeNodes t;
  constexpr int kFiles = 9;  // over 3 owners: renames within one owner and across two
  for (int i = 0; i < kFiles; ++i) {
    uint64_t ino = t.c.Write(0, "/ws", "a" + std::to_string(i), "x");
    REQUIRE(t.c.fs(0).SetXattr(ino, "user.n", std::to_string(i), 0).ok());
  }
  uint64_t ws = t.c.Walk(1, "/ws");
  for (int i = 0; i < kFiles; ++i)
    REQUIRE(t.c.fs(1).Rename(ws, "a" + std::to_string(i), ws, "b" + std::to_string(i), 0).ok());
  for (int i = 0; i < kFiles; ++i) {
    INFO(i);
    CHECK(t.c.fs(2).GetXattr(t.Ino(2, "b" + std::to_string(i)), "user.n").value() == std::to_string(i));
  }
  // A linked file keeps them in its record: every name sees one set.
  uint64_t ino = t.Ino(0, "b0");
  REQUIRE(t.c.fs(0).Link(ino, t.c.Walk(0, "/ws"), "linked").has_value());
  REQUIRE(t.c.fs(1).SetXattr(t.Ino(1, "linked"), "user.l", "via link", 0).ok());
  CHECK(t.c.fs(2).GetXattr(t.Ino(2, "b0"), "user.l").value() == "via link");
  CHECK(t.c.fs(2).GetXattr(t.Ino(2, "linked"), "user.n").value() == "0");
  // The change time moves; the modification time does not.
  Metadata before = t.c.fs(0).GetAttr(t.Ino(0, "b1"))->md;
  t.c.clock.Advance(2'000'000'000);
  REQUIRE(t.c.fs(0).SetXattr(t.Ino(0, "b1"), "user.t", "1", 0).ok());
  Metadata after = t.c.fs(1).GetAttr(t.Ino(1, "b1"))->md;
  CHECK(after.ctime_ns == t.c.clock.WallNs());
  CHECK(after.mtime_ns == before.mtime_ns);
}

TEST_CASE("an open, unlinked file keeps its extended attributes, and a directory has them too", "[xattr]") {
  ThreeNodes t;
  uint64_t ws = t.c.Walk(0, "/ws");
  auto cr = t.c.fs(0).Create(ws, "f", 0644, O_RDWR, kUser);
  REQUIRE(cr.has_value());
  REQUIRE(t.c.fs(0).SetXattr(cr->first.ino, "user.k", "v", 0).ok());
  REQUIRE(t.c.fs(0).Unlink(ws, "f").ok());
  CHECK(t.c.fs(0).GetXattr(cr->first.ino, "user.k").value() == "v");
  REQUIRE(t.c.fs(0).SetXattr(cr->first.ino, "user.k2", "w", 0).ok());
  CHECK(t.c.fs(0).ListXattr(cr->first.ino).value() == std::string("user.k\0user.k2\0", 15));
  REQUIRE(t.c.fs(0).Release(cr->second).ok());
  auto dir = t.c.fs(1).Mkdir(t.c.Walk(1, "/ws"), "d", 0755, kUser);
  REQUIRE(dir.has_value());
  REQUIRE(t.c.fs(1).SetXattr(dir->ino, "user.d", "dir", 0).ok());
  CHECK(t.c.fs(2).GetXattr(t.Ino(2, "d"), "user.d").value() == "dir");
  // The workspace's root, which every node keeps a copy of.
  REQUIRE(t.c.fs(2).SetXattr(t.c.Walk(2, "/ws"), "user.root", "r", 0).ok());
  CHECK(t.c.fs(0).GetXattr(t.c.Walk(0, "/ws"), "user.root").value() == "r");
}

}  // namespace
}  // namespace bb::fs
