// Record locks on three in-process nodes: a lock set on one node holds against every other node,
// whichever node keeps the file's locks; a close drops its process's locks; a node-private file's
// locks stay on its node.
#include <fcntl.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

struct ThreeNodes {
  explicit ThreeNodes(LayoutMode mode = LayoutMode::kHashed) : c(3, Cluster::Coherent()) {
    REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{mode, 0.25}, kChunk}, kUser).ok());
  }
  OpenFile* Open(uint32_t node, const std::string& name) {
    auto e = c.fs(node).Lookup(c.Walk(node, "/ws"), name);
    REQUIRE(e.has_value());
    auto f = c.fs(node).Open(e->ino, O_RDWR, kUser);
    REQUIRE(f.has_value());
    return *f;
  }
  Cluster c;
};

RangeLock Want(uint64_t owner, LockType type, uint64_t start, uint64_t end = kLockToEnd) {
  return {{0, owner}, type, start, end, 100 + static_cast<uint32_t>(owner)};
}

TEST_CASE("a record lock set on one node holds on every other, and a close drops its owner's", "[locks]") {
  ThreeNodes t;
  for (int k = 0; k < 6; ++k) t.c.Write(0, "/ws", "f" + std::to_string(k), "data");
  std::set<NodeId> lock_nodes;
  for (int k = 0; k < 6; ++k) {
    std::string name = "f" + std::to_string(k);
    INFO(name);
    OpenFile* f0 = t.Open(0, name);
    OpenFile* f1 = t.Open(1, name);
    OpenFile* f2 = t.Open(2, name);
    NodeId at = t.c.fs(0).LockNode(f0);
    lock_nodes.insert(at);
    CHECK(t.c.fs(1).LockNode(f1) == at);  // every node finds the same one
    CHECK(t.c.fs(2).LockNode(f2) == at);
    // Node 1 writes-locks bytes 0..99; node 2 may not, node 0 may read past them.
    REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(7, LockType::kWrite, 0, 99)).value());
    auto other = t.c.fs(2).SetLock(f2, Want(7, LockType::kRead, 50, 60)).value();
    REQUIRE(other);
    CHECK(other->owner.node == 1);
    CHECK(other->pid == 0);                                                           // a process of another node
    CHECK(t.c.fs(1).TestLock(f1, Want(8, LockType::kWrite, 0)).value()->pid == 107);  // one of its own
    CHECK_FALSE(t.c.fs(0).SetLock(f0, Want(7, LockType::kRead, 100)).value());
    CHECK(t.c.fs(2).TestLock(f2, Want(9, LockType::kWrite, 200, 200)).value()->owner.node == 0);
    // Node 1's process closes a descriptor: its locks go, node 0's stay.
    REQUIRE(t.c.fs(1).ReleaseLocks(f1, 7).ok());
    CHECK_FALSE(t.c.fs(2).SetLock(f2, Want(7, LockType::kWrite, 0, 99)).value());
    CHECK(t.c.fs(2).TestLock(f2, Want(7, LockType::kWrite, 0)).value()->owner.node == 0);
    REQUIRE_FALSE(t.c.fs(0).SetLock(f0, Want(7, LockType::kUnlock, 0)).value());
    REQUIRE(t.c.fs(2).ReleaseLocks(f2, 7).ok());
    CHECK_FALSE(t.c.fs(1).TestLock(f1, Want(3, LockType::kWrite, 0)).value());
    for (auto [n, f] : {std::pair{0, f0}, {1, f1}, {2, f2}}) REQUIRE(t.c.fs(n).Release(f).ok());
  }
  CHECK(lock_nodes.size() > 1);  // spread over the nodes
}

TEST_CASE("a close sends no lock request for a file never locked on its node", "[locks]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "data");
  OpenFile* f1 = t.Open(1, "f");
  OpenFile* f2 = t.Open(2, "f");
  REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(7, LockType::kWrite, 0)).value());
  CHECK_FALSE(f2->inode->locked.load());
  // Node 2's unlock of a lock it never set changes nothing (and asks nobody).
  REQUIRE(t.c.fs(2).ReleaseLocks(f2, 7).ok());
  REQUIRE_FALSE(t.c.fs(2).SetLock(f2, Want(7, LockType::kUnlock, 0)).value());
  CHECK(t.c.fs(2).TestLock(f2, Want(7, LockType::kRead, 0)).value()->owner.node == 1);
  REQUIRE(t.c.fs(1).Release(f1).ok());
  REQUIRE(t.c.fs(2).Release(f2).ok());
}

TEST_CASE("the locks set through an open file go at its release (an OFD lock's owner is the file)", "[locks]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "data");
  OpenFile* a = t.Open(1, "f");
  OpenFile* b = t.Open(1, "f");
  OpenFile* other = t.Open(2, "f");
  REQUIRE_FALSE(t.c.fs(1).SetLock(a, Want(55, LockType::kWrite, 0, 9)).value());
  REQUIRE_FALSE(t.c.fs(1).SetLock(b, Want(66, LockType::kWrite, 10, 19)).value());
  REQUIRE(t.c.fs(1).Release(a).ok());
  CHECK_FALSE(t.c.fs(2).TestLock(other, Want(1, LockType::kWrite, 0, 9)).value());
  CHECK(t.c.fs(2).TestLock(other, Want(1, LockType::kWrite, 0)).value()->start == 10);  // b's stays
  REQUIRE(t.c.fs(1).Release(b).ok());
  CHECK_FALSE(t.c.fs(2).TestLock(other, Want(1, LockType::kWrite, 0)).value());
  REQUIRE(t.c.fs(2).Release(other).ok());
}

TEST_CASE("a flock lock set on one node holds on every other, beside record locks, until its file's release",
          "[locks]") {
  for (const auto& m : testing::kModes) {
    INFO(m.name);
    ThreeNodes t(m.mode);
    const uint32_t other_node = m.mode == LayoutMode::kNodeLocal ? 1 : 2;  // mode 1: one node's own
    for (int k = 0; k < 4; ++k) {
      std::string name = "f" + std::to_string(k);
      INFO(name);
      t.c.Write(1, "/ws", name, "data");
      OpenFile* a = t.Open(1, name);
      OpenFile* b = t.Open(other_node, name);
      OpenFile* c = t.Open(1, name);
      CHECK(t.c.fs(1).Flock(a, 11, LockType::kWrite).value());
      CHECK_FALSE(t.c.fs(other_node).Flock(b, 12, LockType::kRead).value());  // LOCK_SH|LOCK_NB: EWOULDBLOCK
      CHECK_FALSE(t.c.fs(1).Flock(c, 13, LockType::kWrite).value());          // another description on its node
      // Record locks of the file are another kind: neither kind stops the other.
      CHECK_FALSE(t.c.fs(other_node).SetLock(b, Want(12, LockType::kWrite, 0)).value());
      auto record = t.c.fs(1).TestLock(a, Want(11, LockType::kRead, 0)).value();
      REQUIRE(record);
      CHECK_FALSE(record->owner.flock);
      // Unlocked, shared; then the release of the holder's file ends its lock.
      CHECK(t.c.fs(1).Flock(a, 11, LockType::kUnlock).value());
      CHECK(t.c.fs(other_node).Flock(b, 12, LockType::kRead).value());
      CHECK(t.c.fs(1).Flock(c, 13, LockType::kRead).value());
      CHECK_FALSE(t.c.fs(1).Flock(a, 11, LockType::kWrite).value());
      REQUIRE(t.c.fs(other_node).Release(b).ok());
      REQUIRE(t.c.fs(1).Release(c).ok());
      CHECK(t.c.fs(1).Flock(a, 11, LockType::kWrite).value());
      REQUIRE(t.c.fs(1).Release(a).ok());
    }
  }
}

// A file of /ws whose locks node `keeper` keeps, made by node 0.
std::string KeptBy(ThreeNodes& t, NodeId keeper, int* k) {
  for (;;) {
    std::string name = "k" + std::to_string((*k)++);
    t.c.Write(0, "/ws", name, "data");
    OpenFile* f = t.Open(0, name);
    NodeId at = t.c.fs(0).LockNode(f);
    REQUIRE(t.c.fs(0).Release(f).ok());
    if (at == keeper) return name;
  }
}

TEST_CASE("a node whose daemon starts again drops the locks it held at other nodes", "[locks]") {
  ThreeNodes t;
  int k = 0;
  const std::string name = KeptBy(t, 2, &k);  // another node keeps its locks
  OpenFile* f1 = t.Open(1, name);
  REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(7, LockType::kWrite, 0)).value());
  OpenFile* f2 = t.Open(2, name);
  CHECK(t.c.fs(2).TestLock(f2, Want(7, LockType::kWrite, 0)).value());
  t.c.Assemble(1);  // node 1's daemon died holding it, and starts again
  LockRecovery r = t.c.RecoverLocksOf(1);
  CHECK(r.unreachable.empty());
  CHECK_FALSE(t.c.fs(2).TestLock(f2, Want(7, LockType::kWrite, 0)).value());
  REQUIRE(t.c.fs(2).Release(f2).ok());
}

TEST_CASE("a node whose daemon starts again takes back the locks it keeps from their holders", "[locks]") {
  ThreeNodes t;
  int k = 0;
  const std::string a = KeptBy(t, 1, &k), b = KeptBy(t, 1, &k);
  OpenFile* a0 = t.Open(0, a);
  OpenFile* b2 = t.Open(2, b);
  OpenFile* a2 = t.Open(2, a);
  // Node 0: a write lock of a's bytes 0..99 but 40..59, and a flock lock; node 2: a read lock of b.
  REQUIRE_FALSE(t.c.fs(0).SetLock(a0, Want(7, LockType::kWrite, 0, 99)).value());
  REQUIRE_FALSE(t.c.fs(0).SetLock(a0, Want(7, LockType::kUnlock, 40, 59)).value());
  REQUIRE(t.c.fs(0).Flock(a0, 8, LockType::kRead).value());
  REQUIRE_FALSE(t.c.fs(2).SetLock(b2, Want(9, LockType::kRead, 0)).value());
  CHECK(t.c.fs(2).SetLock(a2, Want(9, LockType::kRead, 10, 10)).value());  // refused: not held by 2

  t.c.Assemble(1);  // node 1's daemon died, its tables with it
  t.c.members[1].locks->BeginRecovery();
  // A request meanwhile waits for the recovery, and is answered by the tables taken back.
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    LockRecovery r = t.c.RecoverLocksOf(1);
    CHECK(r.taken_back == 4);
    CHECK(r.refused == 0);
    CHECK(r.unreachable.empty());
  });
  auto waited = t.c.fs(2).SetLock(a2, Want(9, LockType::kWrite, 0, 0));
  later.join();
  REQUIRE(waited.has_value());
  REQUIRE(*waited);
  CHECK(waited.value()->owner.node == 0);
  CHECK_FALSE(t.c.fs(2).SetLock(a2, Want(9, LockType::kWrite, 40, 59)).value());  // the part unlocked
  CHECK(t.c.fs(2).Flock(a2, 10, LockType::kWrite).value() == false);              // node 0's flock lock
  CHECK(t.c.fs(0).TestLock(a0, Want(7, LockType::kWrite, 0)).value()->owner.node == 2);
  // Node 2's lock of b is back, and goes with its close.
  OpenFile* b0 = t.Open(0, b);
  CHECK(t.c.fs(0).TestLock(b0, Want(7, LockType::kWrite, 0)).value()->owner.node == 2);
  REQUIRE(t.c.fs(2).Release(b2).ok());
  CHECK_FALSE(t.c.fs(0).TestLock(b0, Want(7, LockType::kWrite, 0)).value());
  // Node 0's go at its release; then node 2 takes them.
  REQUIRE(t.c.fs(0).Release(a0).ok());
  CHECK_FALSE(t.c.fs(2).SetLock(a2, Want(9, LockType::kWrite, 0)).value());
  CHECK(t.c.fs(2).Flock(a2, 10, LockType::kWrite).value());
  // A restart of node 1 now takes back node 2's locks of a and nothing of node 0's.
  t.c.Assemble(1);
  CHECK(t.c.RecoverLocksOf(1).taken_back == 2);
  REQUIRE(t.c.fs(0).Release(b0).ok());
  REQUIRE(t.c.fs(2).Release(a2).ok());
  t.c.Assemble(1);
  CHECK(t.c.RecoverLocksOf(1).taken_back == 0);
}

TEST_CASE("a wait that closes a cycle of this node's waits is EDEADLK, one through another node's is not found",
          "[locks]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "data");
  OpenFile* f0 = t.Open(0, "f");
  OpenFile* f1 = t.Open(1, "f");
  // Owners 1, 2 and 3 of node 0 hold bytes 1, 2 and 3; 1 waits for 2, 2 for 3.
  for (uint64_t o = 1; o <= 3; ++o) REQUIRE_FALSE(t.c.fs(0).SetLock(f0, Want(o, LockType::kWrite, o, o)).value());
  auto blocker = [&](uint64_t o, uint64_t at) {
    auto b = t.c.fs(0).SetLock(f0, Want(o, LockType::kWrite, at, at)).value();
    REQUIRE(b);
    return *b;
  };
  REQUIRE(t.c.fs(0).WaitingFor(1, blocker(1, 2), 101).ok());
  REQUIRE(t.c.fs(0).WaitingFor(2, blocker(2, 3), 102).ok());
  CHECK(t.c.fs(0).WaitingFor(3, blocker(3, 1), 103).code() == EDEADLK);  // 3 -> 1 -> 2 -> 3
  // A wait that ended (whatever token another wait of the owner has) breaks the cycle.
  t.c.fs(0).DoneWaiting(2, 999);  // not its wait: kept
  CHECK(t.c.fs(0).WaitingFor(3, blocker(3, 1), 103).code() == EDEADLK);
  t.c.fs(0).DoneWaiting(2, 102);
  CHECK(t.c.fs(0).WaitingFor(3, blocker(3, 1), 103).ok());
  t.c.fs(0).DoneWaiting(3, 103);
  // Node 1's owner 1 holds byte 10 and waits for node 0's owner 1: node 0's owner 1 asking for
  // byte 10 is told of node 1's lock, whose waits node 0 does not know.
  REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(1, LockType::kWrite, 10, 10)).value());
  auto other = t.c.fs(0).SetLock(f0, Want(5, LockType::kWrite, 10, 10)).value();
  REQUIRE(other);
  CHECK(other->owner.node == 1);
  CHECK(t.c.fs(0).WaitingFor(5, *other, 105).ok());
  t.c.fs(0).DoneWaiting(5, 105);
  t.c.fs(0).DoneWaiting(1, 101);
  REQUIRE(t.c.fs(0).Release(f0).ok());
  REQUIRE(t.c.fs(1).Release(f1).ok());
}

TEST_CASE("an unlock ends the waits for its owner: a wait it freed is no cycle", "[locks]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "data");
  OpenFile* f = t.Open(0, "f");
  REQUIRE_FALSE(t.c.fs(0).SetLock(f, Want(1, LockType::kWrite, 0, 0)).value());
  REQUIRE_FALSE(t.c.fs(0).SetLock(f, Want(2, LockType::kWrite, 1, 1)).value());
  auto b = t.c.fs(0).SetLock(f, Want(2, LockType::kWrite, 0, 0)).value();
  REQUIRE(b);
  REQUIRE(t.c.fs(0).WaitingFor(2, *b, 7).ok());  // 2 waits for 1's byte 0
  // 1 lets byte 0 go, then asks for 2's byte 1: 2 no longer waits for it (its next try takes
  // byte 0), so 1 waits, no EDEADLK.
  REQUIRE_FALSE(t.c.fs(0).SetLock(f, Want(1, LockType::kUnlock, 0, 0)).value());
  b = t.c.fs(0).SetLock(f, Want(1, LockType::kWrite, 1, 1)).value();
  REQUIRE(b);
  CHECK(t.c.fs(0).WaitingFor(1, *b, 8).ok());
  REQUIRE(t.c.fs(0).Release(f).ok());
}

TEST_CASE("a wait's later tries do not wait for a keeper that recovers its locks", "[locks]") {
  ThreeNodes t;
  int k = 0;
  const std::string a = KeptBy(t, 1, &k);
  OpenFile* a2 = t.Open(2, a);
  t.c.members[1].locks->BeginRecovery();
  CHECK(t.c.fs(2).SetLock(a2, Want(9, LockType::kWrite, 0), /*wait_recovery=*/false).error().code() == EINPROGRESS);
  CHECK(t.c.fs(2).Flock(a2, 9, LockType::kWrite, false).error().code() == EINPROGRESS);
  t.c.members[1].locks->EndRecovery();
  CHECK_FALSE(t.c.fs(2).SetLock(a2, Want(9, LockType::kWrite, 0), false).value());
  REQUIRE(t.c.fs(2).Release(a2).ok());
}

// A node that answers no lock request (its daemon is down, or cut off).
class Unreachable : public testing::ForwardingNodeService {
 public:
  Unreachable() : ForwardingNodeService(nullptr) {}
  Result<std::optional<RangeLock>> Lock(uint64_t, const RangeLock&, bool) override {
    return Status(EIO, "node is down");
  }
  Result<HeldLockPage> HeldLocks(uint64_t, uint32_t) override { return Status(EIO, "node is down"); }
};

TEST_CASE("a restarted node takes back what the nodes that answer hold, and names those that do not", "[locks]") {
  ThreeNodes t;
  int k = 0;
  const std::string a = KeptBy(t, 1, &k), b = KeptBy(t, 1, &k);
  OpenFile* a0 = t.Open(0, a);
  OpenFile* b2 = t.Open(2, b);
  REQUIRE_FALSE(t.c.fs(0).SetLock(a0, Want(7, LockType::kWrite, 0)).value());
  REQUIRE_FALSE(t.c.fs(2).SetLock(b2, Want(9, LockType::kWrite, 0)).value());
  t.c.Assemble(1);
  Unreachable down;
  LockRecovery r = RecoverLocks(
      NodeView{3, 1},
      [&](NodeId n) -> NodeService* { return n == 2 ? static_cast<NodeService*>(&down) : t.c.members[n].as[1].get(); },
      t.c.members[1].locks.get());
  CHECK(r.taken_back == 1);
  CHECK(r.unreachable == std::vector<NodeId>{2});
  CHECK_FALSE(t.c.members[1].locks->recovering());  // it answers all the same
  OpenFile* a2 = t.Open(2, a);
  OpenFile* b0 = t.Open(0, b);
  CHECK(t.c.fs(2).TestLock(a2, Want(9, LockType::kRead, 0)).value()->owner.node == 0);
  CHECK_FALSE(t.c.fs(0).TestLock(b0, Want(7, LockType::kRead, 0)).value());  // node 2's is lost
  for (auto [node, f] : std::vector<std::pair<uint32_t, OpenFile*>>{{0, a0}, {2, b2}, {2, a2}, {0, b0}}) {
    REQUIRE(t.c.fs(node).Release(f).ok());
  }
}

// A holder that answers the same page for ever, "more" following.
class Endless : public testing::ForwardingNodeService {
 public:
  Endless() : ForwardingNodeService(nullptr) {}
  Result<std::optional<RangeLock>> Lock(uint64_t, const RangeLock&, bool) override {
    return std::optional<RangeLock>();
  }
  Result<HeldLockPage> HeldLocks(uint64_t, uint32_t) override {
    ++asked;
    return HeldLockPage{{{5, Want(3, LockType::kRead, 0)}, {6, Want(3, LockType::kRead, 0)}}, true};
  }
  int asked = 0;
};

TEST_CASE("a holder whose pages do not move on is given up on, and the start goes on", "[locks]") {
  ThreeNodes t;
  t.c.Assemble(1);
  Endless endless;
  LockRecovery r = RecoverLocks(
      NodeView{3, 1},
      [&](NodeId n) { return n == 2 ? static_cast<NodeService*>(&endless) : t.c.members[n].as[1].get(); },
      t.c.members[1].locks.get());
  CHECK(endless.asked == 2);  // the second page gave nothing after the first
  CHECK(r.taken_back == 2);
  CHECK(r.refused == 2);
  CHECK_FALSE(t.c.members[1].locks->recovering());
}

TEST_CASE("what was written under a lock is read by the next holder on another node", "[locks]") {
  ThreeNodes t;
  t.c.Write(0, "/ws", "f", "start");
  OpenFile* f1 = t.Open(1, "f");
  OpenFile* f2 = t.Open(2, "f");
  std::string before(5, '\0');
  REQUIRE(t.c.fs(2).Read(f2, 0, {before.data(), before.size()}).value() == 5);  // node 2 has it cached
  REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(7, LockType::kWrite, 0)).value());
  // The first write publishes its size at once, the second (within the publish interval: the
  // test clock stands still) not.
  REQUIRE(t.c.fs(1).Write(f1, 0, {"wwwwwww", 7}).has_value());
  std::string data(5 * kChunk + 123, 'w');  // chunks of several nodes, written behind
  REQUIRE(t.c.fs(1).Write(f1, 0, {data.data(), data.size()}).has_value());
  REQUIRE_FALSE(t.c.fs(1).SetLock(f1, Want(7, LockType::kUnlock, 0)).value());
  REQUIRE_FALSE(t.c.fs(2).SetLock(f2, Want(7, LockType::kRead, 0)).value());
  std::string got(data.size() + 10, '\0');
  auto n = t.c.fs(2).Read(f2, 0, {got.data(), got.size()});
  REQUIRE(n.has_value());
  CHECK(*n == data.size());
  CHECK(got.substr(0, data.size()) == data);
  REQUIRE(t.c.fs(1).Release(f1).ok());
  REQUIRE(t.c.fs(2).Release(f2).ok());
}

TEST_CASE("a node-private file's locks are kept on its node", "[locks]") {
  ThreeNodes t(LayoutMode::kNodeLocal);
  t.c.Write(2, "/ws", "mine", "data");
  OpenFile* f = t.Open(2, "mine");
  CHECK(t.c.fs(2).LockNode(f) == 2);
  REQUIRE_FALSE(t.c.fs(2).SetLock(f, Want(1, LockType::kWrite, 0)).value());
  CHECK(t.c.fs(2).TestLock(f, Want(2, LockType::kWrite, 0)).value()->pid == 101);
  REQUIRE(t.c.fs(2).Release(f).ok());
}

}  // namespace
}  // namespace bb::fs
