#include "fs/core/locks/range_locks.h"

#include <array>
#include <catch2/catch.hpp>
#include <random>

namespace bb::fs {
namespace {

const LockOwner kA{0, 1}, kB{1, 1}, kC{1, 2};

RangeLock Lock(LockOwner o, LockType t, uint64_t start, uint64_t end = kLockToEnd) { return {o, t, start, end, 7}; }

TEST_CASE("read locks share a range, a write lock has it alone, an owner never conflicts with itself", "[core]") {
  RangeLocks l;
  CHECK_FALSE(l.Set(Lock(kA, LockType::kRead, 0, 99)));
  CHECK_FALSE(l.Set(Lock(kB, LockType::kRead, 50, 149)));
  auto c = l.Set(Lock(kC, LockType::kWrite, 99, 99));
  REQUIRE(c);
  CHECK(c->owner == kA);
  CHECK_FALSE(l.Conflict(Lock(kC, LockType::kWrite, 150)));  // past both
  CHECK_FALSE(l.Conflict(Lock(kC, LockType::kRead, 0)));     // reads share
  // kA turns its read lock into a write lock where kB reads: refused, nothing changed.
  CHECK(l.Set(Lock(kA, LockType::kWrite, 0, 60))->owner == kB);
  CHECK(l.locks().size() == 2);
  CHECK_FALSE(l.Set(Lock(kA, LockType::kWrite, 0, 49)));  // where only kA reads: fine
  CHECK(l.Conflict(Lock(kB, LockType::kRead, 10, 10))->type == LockType::kWrite);
  // Locks that only touch do not conflict.
  CHECK_FALSE(l.Conflict(Lock(kC, LockType::kWrite, 150, 200)));
}

TEST_CASE("flock locks conflict only with other owners' flock locks, never with record locks", "[core]") {
  const LockOwner flock_a{0, 1, true}, flock_b{1, 1, true};
  RangeLocks l;
  CHECK_FALSE(l.Set(Lock(kA, LockType::kWrite, 0)));       // a record lock of the whole file
  CHECK_FALSE(l.Set(Lock(flock_b, LockType::kWrite, 0)));  // and a flock lock beside it
  CHECK(l.Set(Lock(flock_a, LockType::kRead, 0))->owner == flock_b);
  CHECK(l.Conflict(Lock(kB, LockType::kRead, 5, 5))->owner == kA);  // the record lock, not the flock
  l.Release(kA);
  CHECK_FALSE(l.Conflict(Lock(kB, LockType::kWrite, 0)));
  CHECK(l.locks().size() == 1);
  // An owner id of both kinds is two owners: the record owner's unlock leaves the flock lock.
  CHECK_FALSE(l.Set(Lock(LockOwner{1, 1}, LockType::kUnlock, 0)));
  CHECK(l.Conflict(Lock(flock_a, LockType::kRead, 0))->owner == flock_b);
  // A conversion of one's own flock lock (LOCK_EX to LOCK_SH) replaces it.
  CHECK_FALSE(l.Set(Lock(flock_b, LockType::kRead, 0)));
  CHECK_FALSE(l.Set(Lock(flock_a, LockType::kRead, 0)));
  CHECK(l.locks().size() == 2);
  // Two LOCK_SH holders both asking for LOCK_EX: the old lock goes first (as on Linux), so the
  // first is refused and holds nothing, and the second then has it.
  CHECK(l.Set(Lock(flock_a, LockType::kWrite, 0))->owner == flock_b);
  CHECK_FALSE(l.Set(Lock(flock_b, LockType::kWrite, 0)));
  CHECK(l.locks().size() == 1);
}

TEST_CASE("an unlock of part of a range splits it, and an owner's touching locks of a type are one", "[core]") {
  RangeLocks l;
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kWrite, 0, 9)));
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kWrite, 20, 29)));
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kWrite, 10, 19)));
  REQUIRE(l.locks().size() == 1);
  CHECK(l.locks()[0].start == 0);
  CHECK(l.locks()[0].end == 29);
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kUnlock, 5, 24)));
  REQUIRE(l.locks().size() == 2);
  CHECK_FALSE(l.Conflict(Lock(kB, LockType::kWrite, 5, 24)));
  CHECK(l.Conflict(Lock(kB, LockType::kWrite, 4, 4)));
  CHECK(l.Conflict(Lock(kB, LockType::kWrite, 25, 25)));
  // A lock to the end of the file, then an unlock of everything.
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kRead, 100)));
  CHECK(l.Conflict(Lock(kB, LockType::kWrite, uint64_t{1} << 40, uint64_t{1} << 40)));
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kUnlock, 0)));
  CHECK(l.empty());
}

TEST_CASE("a release drops one owner's locks, or every owner's on a node", "[core]") {
  RangeLocks l;
  REQUIRE_FALSE(l.Set(Lock(kA, LockType::kRead, 0)));
  REQUIRE_FALSE(l.Set(Lock(kB, LockType::kRead, 0)));
  REQUIRE_FALSE(l.Set(Lock(kC, LockType::kRead, 0)));
  l.Release(kB);
  CHECK(l.locks().size() == 2);
  l.Release(LockOwner{1, 0}, true);
  REQUIRE(l.locks().size() == 1);
  CHECK(l.locks()[0].owner == kA);
}

TEST_CASE("a node keeps at most kMaxPerFile locks of a file, and a close always unlocks", "[core]") {
  LockTables t;
  for (uint64_t i = 0; i < LockTables::kMaxPerFile; ++i) {
    REQUIRE_FALSE(t.Lock(9, Lock(kA, LockType::kRead, 2 * i, 2 * i), false).value());
  }
  CHECK(t.Lock(9, Lock(kB, LockType::kRead, 1, 1), false).error().code() == ENOLCK);
  CHECK(t.Lock(9, Lock(kA, LockType::kUnlock, 0, 0), false).error().code() == ENOLCK);
  CHECK(t.Lock(9, Lock(kB, LockType::kWrite, 0, 0), true).value()->owner == kA);  // tests go on
  REQUIRE_FALSE(t.Lock(9, Lock(kA, LockType::kUnlock, 0), false).value());
  CHECK(t.files() == 0);
  REQUIRE_FALSE(t.Lock(9, Lock(kB, LockType::kRead, 1, 1), false).value());
  REQUIRE_FALSE(t.Lock(kAllFiles, Lock(LockOwner{1, 0}, LockType::kUnlock, 0), false).value());  // node 1's go
  CHECK(t.files() == 0);
}

TEST_CASE("tables that recover their locks answer EINPROGRESS but to a node's start, and take locks back", "[core]") {
  LockTables t(/*recovering=*/true);
  CHECK(t.recovering());
  CHECK(t.Lock(9, Lock(kA, LockType::kRead, 0), false).error().code() == EINPROGRESS);
  CHECK(t.Lock(9, Lock(kA, LockType::kRead, 0), true).error().code() == EINPROGRESS);  // tests too
  CHECK(t.Lock(9, Lock(kA, LockType::kUnlock, 0), false).error().code() == EINPROGRESS);
  REQUIRE(t.TakeBack(9, Lock(kA, LockType::kWrite, 0, 99)).ok());
  REQUIRE(t.TakeBack(9, Lock(kB, LockType::kRead, 100)).ok());
  LockOwner flock_c{1, 2, true};
  REQUIRE(t.TakeBack(9, Lock(flock_c, LockType::kWrite, 0)).ok());            // another kind: no conflict
  CHECK(t.TakeBack(9, Lock(kC, LockType::kRead, 50, 50)).code() == EDEADLK);  // over kA's write lock
  // A flock owner's conflicting lock is refused, not converted: kC's flock lock stays.
  CHECK(t.TakeBack(9, Lock(LockOwner{0, 5, true}, LockType::kRead, 0)).code() == EDEADLK);
  CHECK(t.TakeBack(9, Lock(kA, LockType::kUnlock, 0)).code() == EINVAL);
  CHECK(t.TakeBack(kAllFiles, Lock(kA, LockType::kRead, 0)).code() == EINVAL);
  // A node starting meanwhile drops its locks: node 1's (kB's and the flock lock) go.
  REQUIRE_FALSE(t.Lock(kAllFiles, Lock(LockOwner{1, 0}, LockType::kUnlock, 0), false).value());
  t.EndRecovery();
  CHECK_FALSE(t.recovering());
  CHECK(t.Lock(9, Lock(kC, LockType::kRead, 50, 50), true).value()->owner == kA);
  CHECK_FALSE(t.Lock(9, Lock(kC, LockType::kWrite, 100), false).value());
  CHECK_FALSE(t.Lock(9, Lock(LockOwner{0, 5, true}, LockType::kWrite, 0), false).value());
}

TEST_CASE("a holder's record of the locks others keep follows their answers, by keeper, in pages", "[core]") {
  HeldLocks h;
  const LockOwner mine{2, 1}, flock{2, 3, true};
  h.Note(1, 10, Lock(mine, LockType::kWrite, 0, 99), false);
  h.Note(1, 10, Lock(mine, LockType::kUnlock, 40, 59), false);  // splits it
  h.Note(1, 10, Lock(mine, LockType::kRead, 500, 599), true);   // refused: not held
  h.Note(0, 11, Lock(mine, LockType::kRead, 0), false);         // kept by node 0
  h.Note(1, 12, Lock(flock, LockType::kRead, 0), false);
  h.Note(1, 13, Lock(mine, LockType::kUnlock, 0), false);  // an unlock of nothing records nothing
  HeldLockPage p = h.KeptBy(1, 0, 100);
  CHECK_FALSE(p.more);
  REQUIRE(p.locks.size() == 3);
  CHECK(p.locks[0] == HeldLock{10, Lock(mine, LockType::kWrite, 0, 39)});
  CHECK(p.locks[1] == HeldLock{10, Lock(mine, LockType::kWrite, 60, 99)});
  CHECK(p.locks[2] == HeldLock{12, Lock(flock, LockType::kRead, 0)});
  CHECK(h.KeptBy(0, 0, 100).locks == std::vector<HeldLock>{{11, Lock(mine, LockType::kRead, 0)}});
  // Pages: a file's locks together, then the files after the last one given.
  p = h.KeptBy(1, 0, 1);
  CHECK(p.more);
  CHECK(p.locks.size() == 2);
  p = h.KeptBy(1, 10, 1);
  CHECK_FALSE(p.more);
  CHECK(p.locks.size() == 1);
  CHECK(h.KeptBy(1, 12, 1).locks.empty());
  // A flock conversion the keeper refused dropped the old lock there: here too.
  h.Note(1, 12, Lock(flock, LockType::kWrite, 0), true);
  // An unlock goes whatever its keeper answered.
  h.Note(1, 10, Lock(mine, LockType::kUnlock, 0), false);
  CHECK(h.KeptBy(1, 0, 100).locks.empty());
  CHECK(h.KeptBy(0, 0, 100).locks.size() == 1);
}

TEST_CASE("a holder's record takes a grant over its own other owners' locks, whatever order answers came in",
          "[core]") {
  HeldLocks h;
  const LockOwner a{2, 1}, b{2, 2};
  // a held bytes 0..9, unlocked 5 at its keeper, and b was granted 5 there; b's answer is noted
  // first.
  h.Note(1, 10, Lock(a, LockType::kWrite, 0, 9), false);
  h.Note(1, 10, Lock(b, LockType::kWrite, 5, 5), false);
  h.Note(1, 10, Lock(a, LockType::kUnlock, 5, 5), false);
  HeldLockPage p = h.KeptBy(1, 0, 100);
  REQUIRE(p.locks.size() == 3);
  CHECK(p.locks[0].lock == Lock(a, LockType::kWrite, 0, 4));
  CHECK(p.locks[1].lock == Lock(a, LockType::kWrite, 6, 9));
  CHECK(p.locks[2].lock == Lock(b, LockType::kWrite, 5, 5));
  // A read grant takes only write locks away; others' read locks stay.
  h.Note(1, 11, Lock(a, LockType::kRead, 0, 9), false);
  h.Note(1, 11, Lock(b, LockType::kRead, 0, 0), false);
  CHECK(h.KeptBy(1, 10, 100).locks.size() == 2);
}

// Random locks of 3 owners over bytes 0..63 against a byte-by-byte model, whose byte 64 stands for
// every byte past 63.
TEST_CASE("random locks and unlocks match a byte-by-byte model", "[core]") {
  constexpr int kBytes = 65;
  const LockOwner owners[] = {kA, kB, kC};
  enum State : uint8_t { kNone, kReadHeld, kWriteHeld };
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    RangeLocks l;
    std::array<std::array<State, kBytes>, 3> model{};
    for (int step = 0; step < 60; ++step) {
      int o = static_cast<int>(rng() % 3);
      auto type = static_cast<LockType>(rng() % 3);
      uint64_t start = rng() % 64, end = rng() % 8 == 0 ? kLockToEnd : start + rng() % (64 - start);
      RangeLock want = Lock(owners[o], type, start, end);
      uint64_t last = std::min<uint64_t>(end, kBytes - 1);
      bool conflict = false;
      for (int p = 0; p < 3; ++p) {
        for (uint64_t b = start; p != o && b <= last; ++b) {
          conflict |= model[p][b] == kWriteHeld || (model[p][b] == kReadHeld && type == LockType::kWrite);
        }
      }
      conflict &= type != LockType::kUnlock;
      auto got = l.Set(want);
      REQUIRE(got.has_value() == conflict);
      if (got) {
        CHECK_FALSE(got->owner == owners[o]);
        CHECK((got->type == LockType::kWrite || type == LockType::kWrite));
        continue;
      }
      State s = type == LockType::kRead ? kReadHeld : type == LockType::kWrite ? kWriteHeld : kNone;
      for (uint64_t b = start; b <= last; ++b) model[o][b] = s;
      // The table, byte by byte, is the model; an owner's locks never overlap.
      std::array<std::array<State, kBytes>, 3> seen{};
      for (const RangeLock& h : l.locks()) {
        int p = h.owner == kA ? 0 : h.owner == kB ? 1 : 2;
        for (uint64_t b = h.start; b <= std::min<uint64_t>(h.end, kBytes - 1); ++b) {
          REQUIRE(seen[p][b] == kNone);
          seen[p][b] = h.type == LockType::kRead ? kReadHeld : kWriteHeld;
        }
      }
      REQUIRE(seen == model);
    }
  }
}

}  // namespace
}  // namespace bb::fs
