// Rename of a directory that holds entries (FileSystem::MoveTree), on a cluster of in-process
// nodes (test_cluster.h), in every layout mode.
#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <map>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kModes;
using testing::kUser;

// What node `n` sees below directory `dir` ("/ws/d"), recursively: a file's data, a directory's
// "<dir nlink>", a symlink's "-> target", keyed by path relative to `dir`, with each inode.
struct Seen {
  std::map<std::string, std::string> what;
  std::map<std::string, uint64_t> ino;
};

void Walk(Cluster& c, uint32_t n, uint64_t ino, const std::string& path, const std::string& rel, Seen* out) {
  for (const std::string& name : c.List(n, ino)) {
    auto e = c.fs(n).Lookup(ino, name);
    REQUIRE(e.has_value());
    std::string r = rel + "/" + name;
    out->ino[r] = e->ino;
    if (e->md.type == FileType::kDirectory) {
      out->what[r] = "<dir " + std::to_string(2 + e->md.subdirs) + ">";
      Walk(c, n, e->ino, path + "/" + name, r, out);
    } else if (e->md.type == FileType::kSymlink) {
      out->what[r] = "-> " + e->md.symlink_target;
    } else {
      out->what[r] = c.Read(n, path, name).value();
    }
  }
}

// One line per entry, so that a failed comparison shows which.
std::string Dump(const std::map<std::string, std::string>& what) {
  std::string out;
  for (const auto& [path, w] : what) out += path + " " + w.substr(0, 24) + "\n";
  return out;
}

// A cluster wrapper that puts every node's service in a `Store` (a ForwardingNodeService), kept
// in `stores` by node.
template <class Store>
Cluster::ServiceWrapper Kept(std::vector<Store*>* stores) {
  return [stores](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
    auto r = std::make_unique<Store>(std::move(s));
    (*stores)[node] = r.get();
    return r;
  };
}

Seen Below(Cluster& c, uint32_t n, const std::string& dir) {
  Seen s;
  Walk(c, n, c.Walk(n, dir), dir, "", &s);
  return s;
}

// A tree of 2 directories below "/ws/d" and files in each, one of them 3 chunks long, one file
// with a second name in another directory of the tree, and a symlink; made on node `n`.
void MakeTree(Cluster& c, uint32_t n) {
  uint64_t ws = c.Walk(n, "/ws");
  auto d = c.fs(n).Mkdir(ws, "d", 0755, kUser);
  REQUIRE(d.has_value());
  auto s1 = c.fs(n).Mkdir(d->ino, "s1", 0755, kUser);
  REQUIRE(s1.has_value());
  REQUIRE(c.fs(n).Mkdir(s1->ino, "s2", 0755, kUser).has_value());
  for (int i = 0; i < 12; ++i) c.Write(n, "/ws/d", "f" + std::to_string(i), "data " + std::to_string(i));
  c.Write(n, "/ws/d", "big", std::string(3 * kChunk + 7, 'b'));
  c.Write(n, "/ws/d/s1", "g", "in s1");
  uint64_t h = c.Write(n, "/ws/d/s1/s2", "h", "deep");
  REQUIRE(c.fs(n).Link(h, d->ino, "h-link").has_value());
  REQUIRE(c.fs(n).Symlink(s1->ino, "ln", "../f1", kUser).has_value());
  c.fs(n).SendDirChanges();  // the directories' counts at their owners, as other nodes read them
}

TEST_CASE("a directory holding a tree is renamed on one node and every node finds the tree at its new name",
          "[rename]") {
  for (const auto& m : kModes) {
    INFO(m.name);
    Cluster c(4, Cluster::Coherent());
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    const bool local = m.mode == LayoutMode::kNodeLocal;  // one node's namespace: all on node 0
    const uint32_t renamer = local ? 0 : 1, writer = local ? 0 : 2;
    MakeTree(c, 0);
    Seen before = Below(c, 0, "/ws/d");
    REQUIRE(before.what.size() == 19);
    const uint64_t dir_ino = c.Walk(0, "/ws/d");
    // Every node learns the tree before it moves, so that each must be told; one has a file open.
    for (uint32_t n = 0; n < 4 && !local; ++n) CHECK(Dump(Below(c, n, "/ws/d").what) == Dump(before.what));
    uint64_t open_ino = c.fs(writer).Lookup(c.Walk(writer, "/ws/d/s1"), "g").value().ino;
    auto w = c.fs(writer).Open(open_ino, O_WRONLY, kUser);
    REQUIRE(w.has_value());

    // A directory made just before by a node that has not sent its count of /ws/d yet (sent every
    // 20 ms) is counted at the new name all the same.
    const uint32_t maker = local ? 0 : 3;
    REQUIRE(c.fs(maker).Mkdir(c.Walk(maker, "/ws/d"), "late", 0755, kUser).has_value());
    before.what["/late"] = "<dir 2>";
    uint64_t ws = c.Walk(renamer, "/ws");
    REQUIRE(c.fs(renamer).Rename(ws, "d", ws, "e", 0).ok());

    // Its writes follow the file to its new name.
    REQUIRE(c.fs(writer).Write(*w, 5, {"+more", 5}).has_value());
    REQUIRE(c.fs(writer).Release(*w).ok());
    before.what["/s1/g"] = "in s1+more";
    for (uint32_t n = 0; n < (local ? 1u : 4u); ++n) {
      INFO("node " << n);
      CHECK(c.fs(n).Lookup(c.Walk(n, "/ws"), "d").error().code() == ENOENT);
      auto e = c.fs(n).Lookup(c.Walk(n, "/ws"), "e");
      REQUIRE(e.has_value());
      CHECK(e->ino == dir_ino);
      CHECK(e->md.subdirs == 2);
      Seen after = Below(c, n, "/ws/e");
      CHECK(Dump(after.what) == Dump(before.what));
      after.ino.erase("/late");
      CHECK(after.ino == before.ino);  // every file is the same file
      CHECK(c.fs(n).GetAttr(before.ino["/h-link"]).value().md.nlink == 2);
    }
    // No entry is left at an old path in any node's store.
    for (uint32_t n = 0; n < 4; ++n) {
      for (const char* dir : {"/ws/d", "/ws/d/s1", "/ws/d/s1/s2"}) {
        CHECK(c.members[n].service->ListDir(dir, "", 100).value().entries.empty());
      }
    }
    // Over an empty directory, and back; into a directory of its own tree, never.
    REQUIRE(c.fs(0).Mkdir(c.Walk(0, "/ws"), "empty", 0755, kUser).has_value());
    REQUIRE(c.fs(0).Rename(c.Walk(0, "/ws"), "e", c.Walk(0, "/ws"), "empty", 0).ok());
    CHECK(Dump(Below(c, local ? 0 : 3, "/ws/empty").what) == Dump(before.what));
    CHECK(c.fs(0).Rename(c.Walk(0, "/ws"), "empty", c.Walk(0, "/ws/empty/s1"), "x", 0).code() == EINVAL);
    REQUIRE(c.fs(0).Rename(c.Walk(0, "/ws"), "empty", c.Walk(0, "/ws"), "d", 0).ok());
    CHECK(Dump(Below(c, 0, "/ws/d").what) == Dump(before.what));
    // A file removed after the moves goes with its data, as any other.
    REQUIRE(c.fs(0).Unlink(c.Walk(0, "/ws/d"), "big").ok());
    CHECK(c.fs(renamer).Lookup(c.Walk(renamer, "/ws/d"), "big").error().code() == ENOENT);
  }
}

// Refuses to make entries (CreateMeta) once `allowed` of them were made, as a full store would;
// or, with `made_meanwhile`, makes another file's entry at a path just before it is made there.
class RefusingMakes : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  Status CreateMeta(const std::string& path, const Metadata& md) override {
    if (path == made_meanwhile) {
      Metadata other = md;
      other.file_id = 999'999;
      (void)ForwardingNodeService::CreateMeta(path, other);
    }
    if (allowed.fetch_sub(1) <= 0) return Status(ENOSPC, "test store is full");
    return ForwardingNodeService::CreateMeta(path, md);
  }
  std::atomic<int> allowed{1 << 30};
  std::string made_meanwhile;
};

TEST_CASE("a tree rename refused halfway leaves every entry under one name or the other, none replaced", "[rename]") {
  for (const auto& m : kModes) {
    INFO(m.name);
    std::vector<RefusingMakes*> stores(3, nullptr);
    Cluster c(3, Cluster::Coherent(), nullptr, Kept(&stores));
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    MakeTree(c, 0);
    const Seen before = Below(c, 0, "/ws/d");
    uint64_t ws = c.Walk(0, "/ws");
    std::vector<Invalidation> own;  // what node 0 tells its own kernel
    c.fs(0).SetOwnKernel(
        [&](const std::vector<Invalidation>& items) { own.insert(own.end(), items.begin(), items.end()); });
    for (RefusingMakes* s : stores) s->allowed = 4;  // the new name and three entries below, then full
    CHECK(c.fs(0).Rename(ws, "d", ws, "e", 0).code() == ENOSPC);
    // Its kernel drops both names (it still holds the whole tree at the old one).
    CHECK(own == std::vector<Invalidation>{{"/ws/d", true}, {"/ws/e", true}});
    for (RefusingMakes* s : stores) s->allowed = 1 << 30;
    // Both names hold a part; together, all of it, each entry once.
    Seen d = Below(c, 0, "/ws/d"), e = Below(c, 0, "/ws/e");
    CHECK(e.what.size() >= 3);
    CHECK(d.what.size() > 0);
    Seen both = d;
    for (const auto& [path, what] : e.what) {
      if (what.rfind("<dir", 0) == 0 && both.what.count(path)) continue;  // moving: at both names
      CHECK(both.what.count(path) == 0);
      both.what[path] = what;
    }
    std::map<std::string, std::string> want = before.what, got = both.what;
    for (auto* t : {&want, &got}) {
      for (auto& [path, what] : *t) {
        if (what.rfind("<dir", 0) == 0) what = "<dir>";  // the counts split with the entries
      }
    }
    CHECK(Dump(got) == Dump(want));
    // The same rename again goes on where it stopped: all of it at the new name, the counts right.
    REQUIRE(c.fs(0).Rename(ws, "d", ws, "e", 0).ok());
    CHECK(c.fs(0).Lookup(ws, "d").error().code() == ENOENT);
    CHECK(Dump(Below(c, 0, "/ws/e").what) == Dump(before.what));
    CHECK(Below(c, 0, "/ws/e").ino == before.ino);
    c.fs(0).SendDirChanges();
    for (uint32_t n = 0; n < (m.mode == LayoutMode::kNodeLocal ? 1u : 3u); ++n) {
      CHECK(c.fs(n).Lookup(c.Walk(n, "/"), "ws").value().md.subdirs == 1);
      CHECK(c.fs(n).Lookup(c.Walk(n, "/ws"), "e").value().md.subdirs == 1);
    }

    // A name made in the new directory while the tree moves there is never replaced: the rename
    // stops (EBUSY) with the entry that was there first at that name.
    REQUIRE(c.fs(0).Mkdir(ws, "t", 0755, kUser).has_value());
    const uint64_t kept = c.Write(0, "/ws/t", "f3", "keep me");
    c.Write(0, "/ws/t", "f4", "and me");
    for (RefusingMakes* s : stores) s->made_meanwhile = "/ws/u/f3";
    CHECK(c.fs(0).Rename(ws, "t", ws, "u", 0).code() == EBUSY);
    for (RefusingMakes* s : stores) s->made_meanwhile.clear();
    auto there = c.fs(0).Lookup(c.Walk(0, "/ws/u"), "f3");
    REQUIRE(there.has_value());
    CHECK(there->md.file_id == 999'999);
    CHECK(c.Read(0, "/ws/t", "f3").value() == "keep me");
    CHECK(there->ino != kept);
  }
}

// Makes entry "late" in "/ws/d" when the first entry leaves that directory (a move takes it from
// its old owner's store by RemoveMeta), as another node making a file in it while it moves would.
class MakesLate : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  Result<Metadata> RemoveMeta(const std::string& from) override {
    auto r = ForwardingNodeService::RemoveMeta(from);
    if (r && make && from.rfind("/ws/d/", 0) == 0 && !made.exchange(true)) make();
    return r;
  }
  std::function<void()> make;
  static inline std::atomic<bool> made{false};
};

TEST_CASE("a name made in a directory while it moves moves with it", "[rename]") {
  for (const auto& m : kModes) {
    INFO(m.name);
    MakesLate::made = false;
    std::vector<MakesLate*> stores(3, nullptr);
    Cluster c(3, Cluster::Coherent(), nullptr, Kept(&stores));
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    MakeTree(c, 0);
    Seen before = Below(c, 0, "/ws/d");
    const NodeId owner = c.OwnerOf(0, "/ws/d/late");
    Metadata late = c.fs(0).GetAttr(before.ino.at("/f0")).value().md;
    late.file_id = 777'777;
    late.size = 0;
    for (MakesLate* s : stores) {
      s->make = [&, owner, late] { REQUIRE(c.members[owner].service->CreateMeta("/ws/d/late", late).ok()); };
    }
    uint64_t ws = c.Walk(0, "/ws");
    REQUIRE(c.fs(0).Rename(ws, "d", ws, "e", 0).ok());
    CHECK(MakesLate::made);
    auto found = c.fs(0).Lookup(c.Walk(0, "/ws/e"), "late");
    REQUIRE(found.has_value());
    CHECK(found->md.file_id == 777'777);
    CHECK(c.members[owner].service->ListDir("/ws/d", "", 10).value().entries.empty());
    before.what["/late"] = "";
    CHECK(Dump(Below(c, 0, "/ws/e").what) == Dump(before.what));
  }
}

TEST_CASE("a directory renamed while a stream's files in it wait on their node moves with them", "[rename]") {
  // A process's later small files in a directory are made on its own node and reach their
  // owners later (deferred_creates.h); the rename, by that node or another, finds them all.
  const uint32_t renamer = GENERATE(1u, 2u);
  INFO("renamed on node " << renamer);
  FileSystemOptions o = Cluster::Coherent();
  o.deferred_create_ms = 0;  // entries go when the test sends them
  Cluster c(4, o);
  const Caller stream{1000, 1000, 77};
  auto d = c.fs(1).Mkdir(kRootFileId, "d", 0755, stream);
  REQUIRE(d.has_value());
  std::map<std::string, std::string> want;
  for (int i = 0; i < 16; ++i) {
    std::string name = "s" + std::to_string(i), data = i % 3 ? "data " + name : "";
    REQUIRE(c.fs(1).Lookup(d->ino, name, stream.pid).error().code() == ENOENT);
    auto cr = c.fs(1).Create(d->ino, name, 0644, O_WRONLY | O_EXCL, stream);
    REQUIRE(cr.has_value());
    if (!data.empty()) REQUIRE(c.fs(1).Write(cr->second, 0, {data.data(), data.size()}).has_value());
    REQUIRE(c.fs(1).Release(cr->second).ok());
    want["/" + name] = data;
  }
  REQUIRE(c.fs(1).DeferredWaiting() > 0);
  REQUIRE(c.fs(renamer).Rename(kRootFileId, "d", kRootFileId, "e", 0).ok());
  REQUIRE(c.fs(1).SendDeferredCreates().ok());  // nothing waits to be made at an old name
  for (uint32_t n = 0; n < 4; ++n) {
    INFO("node " << n);
    CHECK(c.fs(n).Lookup(kRootFileId, "d").error().code() == ENOENT);
    CHECK(Dump(Below(c, n, "/e").what) == Dump(want));
    CHECK(c.members[n].service->ListDir("/d", "", 100).value().entries.empty());
  }
  CHECK(c.fs(1).DeferredCounters().lost == 0);
}

// Removes `path` itself just before a removal of it arrives, as another node's unlink between a
// rename's read of the entry and its removal would.
class RemovesFirst : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  Result<Metadata> RemoveMeta(const std::string& path) override {
    if (path == removed_first) {
      removed_first.clear();
      (void)ForwardingNodeService::RemoveMeta(path);
    }
    if (path == grown_first) {  // a size another node published meanwhile
      grown_first.clear();
      MetaUpdate u;
      u.grow_to = 1'000'000;
      (void)ForwardingNodeService::UpdateMeta(path, u);
    }
    return ForwardingNodeService::RemoveMeta(path);
  }
  std::string removed_first, grown_first;
};

TEST_CASE("an entry removed by another node while it moves stays removed, at neither name", "[rename]") {
  for (const auto& m : kModes) {
    INFO(m.name);
    std::vector<RemovesFirst*> stores(3, nullptr);
    Cluster c(3, Cluster::Coherent(), nullptr, Kept(&stores));
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    MakeTree(c, 0);
    Seen before = Below(c, 0, "/ws/d");
    const uint64_t ws = c.Walk(0, "/ws");
    // A file of the tree; and one whose size grows between its read and its removal, which the
    // entry at its new name keeps.
    for (RemovesFirst* s : stores) {
      s->removed_first = "/ws/d/f5";
      s->grown_first = "/ws/d/f6";
    }
    REQUIRE(c.fs(0).Rename(ws, "d", ws, "e", 0).ok());
    before.what.erase("/f5");
    before.what.erase("/f6");
    Seen after = Below(c, 0, "/ws/e");
    CHECK(after.what.count("/f6") == 1);
    after.what.erase("/f6");
    CHECK(Dump(after.what) == Dump(before.what));
    CHECK(c.fs(0).Lookup(c.Walk(0, "/ws/e"), "f5").error().code() == ENOENT);
    CHECK(c.members[c.OwnerOf(0, "/ws/e/f6")].service->GetMeta("/ws/e/f6").value().size == 1'000'000);
    // A file renamed on its own between two owners (one metadata node in modes 1 and 2: none).
    std::string to;
    for (int k = 0; k < 32 && to.empty(); ++k) {
      std::string name = "moved" + std::to_string(k);
      if (c.OwnerOf(0, "/ws/" + name) != c.OwnerOf(0, "/ws/alone")) to = name;
    }
    if (to.empty()) continue;
    c.Write(0, "/ws", "alone", "x");
    for (RemovesFirst* s : stores) s->removed_first = "/ws/alone";
    CHECK(c.fs(0).Rename(ws, "alone", ws, to, 0).code() == ENOENT);
    for (RemovesFirst* s : stores) s->removed_first.clear();
    CHECK(c.fs(0).Lookup(ws, to).error().code() == ENOENT);
    CHECK(c.fs(0).Lookup(ws, "alone").error().code() == ENOENT);
  }
}

}  // namespace
}  // namespace bb::fs
