// Hard links on a cluster of in-process nodes (test_cluster.h), in every layout mode.
#include <fcntl.h>
#include <stdio.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <functional>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kModes;
using testing::kUser;

uint32_t Nlink(const Entry& e) {
  if (e.unlinked) return 0;
  return e.md.link == LinkRole::kRecord ? e.md.nlink : 1;
}

// Node `b` is where the other names are used: the writer's node in mode 1 (its namespace is its
// own), another node otherwise.
uint32_t OtherNode(LayoutMode mode) { return mode == LayoutMode::kNodeLocal ? 0 : 2; }

TEST_CASE("a hard link names the same file from every node, and counts right to the last name", "[link]") {
  for (const auto& m : kModes) {
    INFO(m.name);
    Cluster c(4);
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    const uint32_t b = OtherNode(m.mode);
    std::string data(3 * kChunk + 5, 'd');
    uint64_t ino = c.Write(0, "/ws", "a", data);
    uint64_t ws0 = c.Walk(0, "/ws"), wsb = c.Walk(b, "/ws");
    // Node b learns the file before it is linked: its inode must follow to the record later.
    auto before = c.fs(b).Lookup(wsb, "a");
    REQUIRE(before.has_value());
    CHECK(Nlink(*before) == 1);

    auto linked = c.fs(0).Link(ino, ws0, "b");
    REQUIRE(linked.has_value());
    CHECK(linked->ino == ino);
    CHECK(Nlink(*linked) == 2);
    CHECK(c.fs(b).GetAttr(ino).value().md.nlink == 2);
    auto via_b = c.fs(b).Lookup(wsb, "b");
    REQUIRE(via_b.has_value());
    CHECK(via_b->ino == ino);
    CHECK(via_b->md.size == data.size());
    CHECK(c.Read(b, "/ws", "b").value() == data);

    // Attributes changed through one name, on another node, are the file's.
    SetAttrRequest chmod;
    chmod.mode = 0600;
    REQUIRE(c.fs(b).SetAttr(ino, chmod, nullptr).has_value());
    CHECK(c.fs(0).Lookup(ws0, "a").value().md.mode == 0600);
    // A write through one name grows the size every name shows.
    c.Write(b, "/ws", "b", data + "more");
    CHECK(c.fs(0).Lookup(ws0, "a").value().md.size == data.size() + 4);
    CHECK(c.Read(0, "/ws", "a").value() == data + "more");

    // A third name, then the names go one by one.
    REQUIRE(c.fs(b).Link(ino, wsb, "c").has_value());
    CHECK(Nlink(c.fs(0).GetAttr(ino).value()) == 3);
    REQUIRE(c.fs(0).Unlink(ws0, "a").ok());
    CHECK(Nlink(c.fs(b).GetAttr(ino).value()) == 2);
    CHECK(c.fs(b).Lookup(wsb, "a").error().code() == ENOENT);
    CHECK(c.Read(b, "/ws", "c").value() == data + "more");
    // Rename of one name over another of the same file changes nothing.
    REQUIRE(c.fs(b).Rename(wsb, "b", wsb, "c", 0).ok());
    CHECK(Nlink(c.fs(b).GetAttr(ino).value()) == 2);
    // Rename of a name keeps the file.
    REQUIRE(c.fs(b).Rename(wsb, "b", wsb, "b2", 0).ok());
    CHECK(c.Read(0, "/ws", "b2").value() == data + "more");
    REQUIRE(c.fs(b).Unlink(wsb, "b2").ok());
    CHECK(Nlink(c.fs(0).GetAttr(ino).value()) == 1);
    REQUIRE(c.fs(0).Unlink(ws0, "c").ok());
    auto gone = c.fs(0).GetAttr(ino);  // the kernel of node 0 still holds the inode: nlink 0
    CHECK((!gone || Nlink(*gone) == 0));
    CHECK(c.fs(b == 0 ? 1 : 3).Lookup(c.Walk(b == 0 ? 1 : 3, "/ws"), "c").error().code() == ENOENT);
    // No entry is left: the data went with the last name.
    uint64_t used = 0;
    for (uint32_t n = 0; n < 4; ++n) {
      auto page = c.members[n].service->ListDir("/ws", "", 100);
      REQUIRE(page.has_value());
      used += page->entries.size();
      std::string buf(16, '\0');
      CHECK(c.members[n].service->ReadChunk(ino, kChunk, 0, 0, {buf.data(), buf.size()}).value() == 0);
      CHECK(c.members[n].service->GetMeta(LinkRecordPath("/ws", ino)).error().code() == ENOENT);
    }
    CHECK(used == 0);
  }
}

TEST_CASE("a rename moves the file's change time, seen on every node, within one owner and across two", "[link]") {
  Cluster c(3);
  REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{LayoutMode::kHashed, 0.25}, kChunk}, kUser).ok());
  constexpr int kFiles = 12;  // over 3 owners: some renames stay with one owner, most cross to another
  std::vector<uint64_t> inos;
  for (int i = 0; i < kFiles; ++i) inos.push_back(c.Write(1, "/ws", "a" + std::to_string(i), "x"));
  c.clock.Advance(5'000'000'000);
  int64_t renamed_ns = c.clock.WallNs();
  for (int i = 0; i < kFiles; ++i) {
    uint64_t ws = c.Walk(2, "/ws");
    REQUIRE(c.fs(2).Rename(ws, "a" + std::to_string(i), ws, "b" + std::to_string(i), 0).ok());
  }
  for (int i = 0; i < kFiles; ++i) {
    INFO(i);
    for (uint32_t node : {0u, 1u, 2u}) {
      auto e = c.fs(node).Lookup(c.Walk(node, "/ws"), "b" + std::to_string(i));
      REQUIRE(e.has_value());
      CHECK(e->md.ctime_ns == renamed_ns);
      CHECK(e->md.mtime_ns < renamed_ns);  // the data did not change
    }
    CHECK(c.fs(1).GetAttr(inos[i])->md.ctime_ns == renamed_ns);  // the node that made it, by its inode
  }
}

TEST_CASE("link refusals and a renamed-over name", "[link]") {
  Cluster c(3);
  REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{LayoutMode::kHashed, 0.25}, kChunk}, kUser).ok());
  REQUIRE(c.fs(0).CreateWorkspace("other", WorkspaceSpec{{LayoutMode::kHashed, 0.25}, kChunk}, kUser).ok());
  uint64_t ws = c.Walk(1, "/ws");
  uint64_t ino = c.Write(1, "/ws", "f", "one");
  uint64_t other = c.Write(1, "/ws", "g", "two");
  auto dir = c.fs(1).Mkdir(ws, "d", 0755, kUser);
  REQUIRE(dir.has_value());
  CHECK(c.fs(1).Link(dir->ino, ws, "d2").error().code() == EPERM);
  CHECK(c.fs(1).Link(ino, ws, "g").error().code() == EEXIST);
  CHECK(c.fs(1).Link(ino, c.Walk(1, "/other"), "f").error().code() == EXDEV);
  CHECK(c.fs(1).Link(ino, kRootFileId, "ws").error().code() == EEXIST);
  CHECK(Nlink(c.fs(1).GetAttr(ino).value()) == 1);  // nothing was counted by the refusals
  // A name renamed over: its file loses a name, the other keeps its data.
  REQUIRE(c.fs(1).Link(ino, ws, "f2").has_value());
  REQUIRE(c.fs(2).Rename(c.Walk(2, "/ws"), "g", c.Walk(2, "/ws"), "f2", 0).ok());
  CHECK(Nlink(c.fs(1).GetAttr(ino).value()) == 1);
  CHECK(c.Read(0, "/ws", "f2").value() == "two");
  CHECK(c.Read(0, "/ws", "f").value() == "one");
  CHECK(c.fs(0).Lookup(c.Walk(0, "/ws"), "f2")->ino == other);
  // Symlinks and FIFOs are linked as themselves.
  auto fifo = c.fs(1).Mknod(ws, "p", S_IFIFO | 0644, 0, kUser);
  REQUIRE(fifo.has_value());
  auto fifo2 = c.fs(1).Link(fifo->ino, ws, "p2");
  REQUIRE(fifo2.has_value());
  CHECK(fifo2->md.type == FileType::kFifo);
  // The workspace's removal takes the records too.
  REQUIRE(c.fs(0).RemoveWorkspace("ws", *c.members[0].router, kUser).ok());
  for (uint32_t n = 0; n < 3; ++n) {
    auto rec = c.members[n].service->GetMeta(LinkRecordPath("/ws", ino));
    CHECK(rec.error().code() == ENOENT);
  }
}

TEST_CASE("a name moved by another node and made again: a node that knew the file keeps it", "[link]") {
  // Node 2 knows the file by its old name (and has it open) when node 1 moves it and node 3 makes
  // a new file there: node 2 must go on answering for its own file, never the new one's.
  for (const auto& m : kModes) {
    if (m.mode == LayoutMode::kNodeLocal) continue;
    INFO(m.name);
    Cluster c(4);
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    uint64_t ino = c.Write(0, "/ws", "a", "old");
    REQUIRE(c.fs(2).Lookup(c.Walk(2, "/ws"), "a").value().ino == ino);
    auto open = c.fs(2).Open(ino, O_RDONLY, kUser);
    REQUIRE(open.has_value());
    REQUIRE(c.fs(1).Rename(c.Walk(1, "/ws"), "a", c.Walk(1, "/ws"), "moved", 0).ok());
    // Nothing at the old name: still its own file (not ENOENT, which would fail reads).
    REQUIRE(c.fs(2).GetAttr(ino).has_value());
    CHECK(c.fs(2).GetAttr(ino)->md.size == 3);
    uint64_t fresh = c.Write(3, "/ws", "a", "newer");
    auto attr = c.fs(2).GetAttr(ino);
    REQUIRE(attr.has_value());
    CHECK(attr->md.file_id == ino);
    CHECK(attr->md.size == 3);
    std::string buf(8, '\0');
    CHECK(c.fs(2).Read(*open, 0, {buf.data(), buf.size()}).value() == 3);
    CHECK(buf.substr(0, 3) == "old");
    REQUIRE(c.fs(2).Release(*open).ok());
    CHECK(c.fs(2).Lookup(c.Walk(2, "/ws"), "a").value().ino == fresh);
    CHECK(c.fs(2).Lookup(c.Walk(2, "/ws"), "moved").value().ino == ino);
    CHECK(c.Read(2, "/ws", "a").value() == "newer");
  }
}

TEST_CASE("a node that renames a name linked elsewhere since follows the file to its record", "[link]") {
  for (const auto& m : kModes) {
    if (m.mode == LayoutMode::kNodeLocal) continue;
    INFO(m.name);
    Cluster c(4);
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    uint64_t ino = c.Write(0, "/ws", "a", "one");
    uint64_t ws2 = c.Walk(2, "/ws");
    REQUIRE(c.fs(2).Lookup(ws2, "a").value().ino == ino);  // node 2 knows it by "a" alone
    REQUIRE(c.fs(0).Link(ino, c.Walk(0, "/ws"), "l").has_value());
    REQUIRE(c.fs(2).Rename(ws2, "a", ws2, "c", 0).ok());
    c.Write(3, "/ws", "a", "another");
    // The file grows through its other name: node 2 sees it, and never the new "a".
    auto w = c.fs(0).Open(ino, O_WRONLY, kUser);
    REQUIRE(w.has_value());
    REQUIRE(c.fs(0).Write(*w, 3, {"-two", 4}).has_value());
    REQUIRE(c.fs(0).Release(*w).ok());
    auto attr = c.fs(2).GetAttr(ino);
    REQUIRE(attr.has_value());
    CHECK(attr->md.file_id == ino);
    CHECK(attr->md.size == 7);
    CHECK(c.Read(2, "/ws", "c").value() == "one-two");
  }
}

TEST_CASE("a file another node moves while it is open here: its writes follow it", "[link]") {
  // Node 2 has the file open for writing when node 1 renames it (eight names: to a name of the
  // same node and of another), or removes the name node 2 knew it by after node 0 linked it (it
  // lives on at its record). Node 2's writes then reach the file where it is, and every node reads
  // them there.
  for (const auto& m : kModes) {
    if (m.mode == LayoutMode::kNodeLocal) continue;
    INFO(m.name);
    Cluster c(4, Cluster::Coherent());  // node 2 is told of the change
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    uint64_t ws1 = c.Walk(1, "/ws"), ws2 = c.Walk(2, "/ws");
    auto write_open = [&](const std::string& name, const std::function<void()>& meanwhile) {
      uint64_t ino = c.fs(2).Lookup(ws2, name).value().ino;
      auto w = c.fs(2).Open(ino, O_WRONLY, kUser);
      REQUIRE(w.has_value());
      meanwhile();
      auto wrote = c.fs(2).Write(*w, 3, {"-new", 4});
      CHECK(wrote.has_value());
      CHECK(c.fs(2).Release(*w).ok());
      auto attr = c.fs(2).GetAttr(ino);
      REQUIRE(attr.has_value());
      CHECK(attr->md.size == 7);
    };
    int across = 0;  // renames between two owners (MoveOutMeta), the rest within one (MoveMeta)
    for (int k = 0; k < 8; ++k) {
      std::string a = "a" + std::to_string(k), b = "b" + std::to_string(k);
      INFO(a);
      across += c.OwnerOf(1, "/ws/" + a) != c.OwnerOf(1, "/ws/" + b);
      c.Write(0, "/ws", a, "old");
      write_open(a, [&] { REQUIRE(c.fs(1).Rename(ws1, a, ws1, b, 0).ok()); });
      CHECK(c.Read(3, "/ws", b).value() == "old-new");
      CHECK(c.Read(2, "/ws", b).value() == "old-new");
    }
    // Both kinds ran where names hash over the nodes (mode 2's one metadata node holds all).
    if (m.mode != LayoutMode::kCentralizedMeta) CHECK((across > 0 && across < 8));
    uint64_t ino = c.Write(0, "/ws", "l1", "one");
    write_open("l1", [&] {
      REQUIRE(c.fs(0).Link(ino, c.Walk(0, "/ws"), "l2").has_value());
      REQUIRE(c.fs(1).Unlink(ws1, "l1").ok());
    });
    CHECK(c.Read(3, "/ws", "l2").value() == "one-new");
    // The same when node 2 itself removes the name, or renames another file over it: it learnt the
    // name before node 0 linked the file, and no owner tells a node of its own change.
    ino = c.Write(0, "/ws", "m1", "one");
    write_open("m1", [&] {
      REQUIRE(c.fs(0).Link(ino, c.Walk(0, "/ws"), "m2").has_value());
      REQUIRE(c.fs(2).Unlink(ws2, "m1").ok());
    });
    CHECK(c.Read(3, "/ws", "m2").value() == "one-new");
    ino = c.Write(0, "/ws", "n1", "one");
    c.Write(0, "/ws", "n3", "other");
    write_open("n1", [&] {
      REQUIRE(c.fs(0).Link(ino, c.Walk(0, "/ws"), "n2").has_value());
      REQUIRE(c.fs(2).Rename(ws2, "n3", ws2, "n1", 0).ok());
    });
    CHECK(c.Read(3, "/ws", "n2").value() == "one-new");
    CHECK(c.Read(3, "/ws", "n1").value() == "other");
    // The name node 2 knew it by is renamed over after the link: the file lives on at its record.
    // Eight names again, so that both the move within one owner and the put at another replace it.
    across = 0;
    for (int k = 0; k < 8; ++k) {
      std::string r1 = "r" + std::to_string(k), r2 = "s" + std::to_string(k), over = "o" + std::to_string(k);
      INFO(r1);
      across += c.OwnerOf(1, "/ws/" + over) != c.OwnerOf(1, "/ws/" + r1);
      ino = c.Write(0, "/ws", r1, "one");
      c.Write(0, "/ws", over, "other");
      write_open(r1, [&] {
        REQUIRE(c.fs(0).Link(ino, c.Walk(0, "/ws"), r2).has_value());
        REQUIRE(c.fs(1).Rename(ws1, over, ws1, r1, 0).ok());
      });
      CHECK(c.Read(3, "/ws", r2).value() == "one-new");
      CHECK(c.Read(3, "/ws", r1).value() == "other");
    }
    if (m.mode != LayoutMode::kCentralizedMeta) CHECK((across > 0 && across < 8));
  }
}

TEST_CASE("a file open here for longer than its callback's hold still follows a rename elsewhere", "[link]") {
  // Node 2 read the name when it opened the file; the owner keeps that registration for its hold
  // (the cache timeout and a second) and two at most. Node 2 renews it while the file is open, so
  // a rename on node 1 much later is still told, and node 2's writes follow the file.
  Cluster c(4, Cluster::Coherent());
  REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{LayoutMode::kHashed, 0.25}, kChunk}, kUser).ok());
  uint64_t ws1 = c.Walk(1, "/ws"), ws2 = c.Walk(2, "/ws");
  c.Write(0, "/ws", "a", "old");
  uint64_t ino = c.fs(2).Lookup(ws2, "a").value().ino;
  auto w = c.fs(2).Open(ino, O_WRONLY, kUser);
  REQUIRE(w.has_value());
  const int64_t hold = Cluster::Coherent().attr_cache_ns + 1'000'000'000;
  for (int i = 0; i < 12; ++i) {  // three holds
    c.clock.Advance(hold / 4);
    c.fs(2).RenewOpenCallbacks();
  }
  REQUIRE(c.fs(1).Rename(ws1, "a", ws1, "b", 0).ok());
  CHECK(c.fs(2).Write(*w, 3, {"-new", 4}).has_value());
  CHECK(c.fs(2).Release(*w).ok());
  CHECK(c.Read(3, "/ws", "b").value() == "old-new");
}

TEST_CASE("a file replaced by another node while open here: its writes never reach the new file", "[link]") {
  // Node 2 has "a" open for writing when node 1 renames "b" over it: the file node 2 holds has no
  // name left (its data goes, docs/consistency.md), and what node 2 then writes, truncates or
  // chmods through its descriptor fails, never changing the file that took the name.
  for (const auto& m : kModes) {
    if (m.mode == LayoutMode::kNodeLocal) continue;
    INFO(m.name);
    Cluster c(4, Cluster::Coherent());
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{m.mode, 0.25}, kChunk}, kUser).ok());
    uint64_t ws1 = c.Walk(1, "/ws");
    uint64_t ino = c.Write(0, "/ws", "a", "old");
    c.Write(0, "/ws", "b", "new");
    auto w = c.fs(2).Open(c.fs(2).Lookup(c.Walk(2, "/ws"), "a").value().ino, O_RDWR, kUser);
    REQUIRE(w.has_value());
    REQUIRE(c.fs(1).Rename(ws1, "b", ws1, "a", 0).ok());
    (void)c.fs(2).Write(*w, 20, {"x", 1});
    CHECK_FALSE(c.fs(2).Fsync(*w).ok());
    SetAttrRequest chmod;
    chmod.mode = 0600;
    CHECK_FALSE(c.fs(2).SetAttr(ino, chmod, *w).has_value());
    (void)c.fs(2).Release(*w);
    auto now = c.fs(3).Lookup(c.Walk(3, "/ws"), "a");
    REQUIRE(now.has_value());
    CHECK(now->md.size == 3);
    CHECK((now->md.mode & 07777) == 0644);
    CHECK(c.Read(3, "/ws", "a").value() == "new");
  }
}

TEST_CASE("an open file keeps its data after its last name, and nlink reads 0", "[link]") {
  Cluster c(2);
  uint64_t ino = c.Write(0, "/", "f", "kept");
  REQUIRE(c.fs(0).Link(ino, kRootFileId, "g").has_value());
  auto open = c.fs(1).Open(c.fs(1).Lookup(kRootFileId, "g")->ino, O_RDONLY, kUser);
  REQUIRE(open.has_value());
  REQUIRE(c.fs(1).Unlink(kRootFileId, "f").ok());
  REQUIRE(c.fs(1).Unlink(kRootFileId, "g").ok());
  auto st = c.fs(1).GetAttr(ino);
  REQUIRE(st.has_value());
  CHECK(Nlink(*st) == 0);
  std::string buf(4, '\0');
  CHECK(c.fs(1).Read(*open, 0, {buf.data(), buf.size()}).value() == 4);
  CHECK(buf == "kept");
  REQUIRE(c.fs(1).Release(*open).ok());
  CHECK(c.members[0].service->GetMeta(LinkRecordPath("/", ino)).error().code() == ENOENT);
}

// Node 1's MoveOutMeta fails (its store full) while `refuse` is set; the rest passes through.
class RefusingMoveOut : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  Result<Metadata> MoveOutMeta(const std::string& from, const std::string& to) override {
    if (refuse) return Status(ENOSPC, "test store is full");
    auto r = ForwardingNodeService::MoveOutMeta(from, to);
    return lose ? Status(ETIMEDOUT, "the answer was lost") : r;
  }
  // The same for every UpdateMeta (a full store refuses changes, not removals).
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& u) override {
    if (refuse_updates) return Status(ENOSPC, "test store is full");
    auto r = ForwardingNodeService::UpdateMeta(path, u);
    return lose && u.link_role ? Status(ETIMEDOUT, "the answer was lost") : r;
  }
  std::atomic<bool> refuse{false};
  std::atomic<bool> refuse_updates{false};
  std::atomic<bool> lose{false};  // applied, but the answer is lost
};

TEST_CASE("a rename or a first link refused halfway leaves each name as it was, and one whose answer was lost is done",
          "[link]") {
  // fsstress on a full store found a file at both names after such a rename failed: two names,
  // each counted as the only one (an unlink of either would have dropped the data of both).
  RefusingMoveOut* full[2] = {nullptr, nullptr};
  Cluster c(2, Cluster::Defaults(), nullptr,
            [&](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
              auto r = std::make_unique<RefusingMoveOut>(std::move(s));
              full[node] = r.get();
              return r;
            });
  RefusingMoveOut* refusing = full[1];
  auto named = [&](NodeId owner, int from) {
    for (int k = from;; ++k) {
      std::string n = "f" + std::to_string(k);
      if (c.OwnerOf(0, "/" + n) == owner) return n;
    }
  };
  const std::string a = named(1, 0), b = named(0, 0), d = named(0, 1000);  // a's owner is node 1
  c.Write(0, "/", a, "data");
  const uint64_t other = c.Write(0, "/", d, "other");
  refusing->refuse = true;
  CHECK(c.fs(0).Rename(kRootFileId, a, kRootFileId, b, 0).code() == ENOSPC);  // to a new name
  CHECK(c.fs(0).Rename(kRootFileId, a, kRootFileId, d, 0).code() == ENOSPC);  // over another file
  refusing->refuse = false;
  for (uint32_t n : {0u, 1u}) {
    INFO("node " << n);
    auto at_b = c.fs(n).Lookup(kRootFileId, b);
    REQUIRE_FALSE(at_b.has_value());
    CHECK(at_b.error().code() == ENOENT);
    auto at_d = c.fs(n).Lookup(kRootFileId, d);
    REQUIRE(at_d.has_value());
    CHECK(at_d->ino == other);
    CHECK(c.Read(n, "/", a).value() == "data");
    CHECK(c.Read(n, "/", d).value() == "other");
  }
  // A first link whose name's store refuses to make it a name (and the record's store to count
  // it down): no record is left counting it, so the link made later counts two names, not three.
  for (RefusingMoveOut* r : full) r->refuse_updates = true;
  auto file = c.fs(0).Lookup(kRootFileId, a);
  REQUIRE(file.has_value());
  CHECK(c.fs(0).Link(file->ino, kRootFileId, b).error().code() == ENOSPC);
  for (RefusingMoveOut* r : full) r->refuse_updates = false;
  auto linked = c.fs(0).Link(file->ino, kRootFileId, b);
  REQUIRE(linked.has_value());
  CHECK(Nlink(*linked) == 2);
  CHECK(Nlink(c.fs(1).Lookup(kRootFileId, a).value()) == 2);
  // Applied, but the answers lost: the rename and the link are done, nothing undone.
  const std::string e = named(1, 2000), g = named(0, 3000), h = named(0, 4000);
  const uint64_t moving = c.Write(0, "/", e, "moving");
  for (RefusingMoveOut* r : full) r->lose = true;
  CHECK(c.fs(0).Rename(kRootFileId, e, kRootFileId, g, 0).ok());
  auto second = c.fs(0).Link(moving, kRootFileId, h);
  for (RefusingMoveOut* r : full) r->lose = false;
  REQUIRE(second.has_value());
  for (uint32_t n : {0u, 1u}) {
    INFO("node " << n);
    CHECK(c.fs(n).Lookup(kRootFileId, e).error().code() == ENOENT);
    CHECK(c.Read(n, "/", g).value() == "moving");
    CHECK(c.Read(n, "/", h).value() == "moving");
    CHECK(Nlink(c.fs(n).Lookup(kRootFileId, g).value()) == 2);
  }
}

}  // namespace
}  // namespace bb::fs
