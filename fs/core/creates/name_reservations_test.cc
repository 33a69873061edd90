#include "fs/core/creates/name_reservations.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace bb::fs {
namespace {

using Intent = NameReservations::Intent;

// A recall that answers from a table of what each holder made, and counts what it was asked.
struct Holders {
  std::mutex mu;
  std::map<NodeId, std::vector<MadeEntry>> made;  // what each holder hands over
  std::vector<std::pair<NodeId, std::vector<std::string>>> asked;
  std::set<NodeId> down;
  std::vector<std::pair<NodeId, MadeEntry>> stored;

  NameReservations::Recall Recall() {
    return [this](NodeId holder, const std::vector<std::string>& paths) -> Result<std::vector<MadeEntry>> {
      std::lock_guard lock(mu);
      asked.emplace_back(holder, paths);
      if (down.count(holder)) return Status(EIO, "node down");
      std::vector<MadeEntry> out;
      for (const MadeEntry& e : made[holder]) {
        if (std::find(paths.begin(), paths.end(), e.path) != paths.end()) out.push_back(e);
      }
      return out;
    };
  }
  NameReservations::Store Store() {
    return [this](NodeId holder, const MadeEntry& e) {
      std::lock_guard lock(mu);
      stored.emplace_back(holder, e);
    };
  }
};

MadeEntry Made(const std::string& path, uint64_t file_id, bool in_flight = false) {
  Metadata md;
  md.file_id = file_id;
  return {path, md, in_flight};
}

TEST_CASE("name reservations: a holder's own reservation, and everyone else's wait", "[core]") {
  ManualClock clock;
  Holders h;
  NameReservations names(h.Recall(), &clock);
  CHECK_FALSE(names.MustSettle("/d/a", 1, Intent::kRead));
  uint64_t g;
  {
    auto lock = names.Lock("/d/a");
    REQUIRE(names.MayMake("/d/a", 1));
    g = names.Reserve("/d/a", 1);
  }
  CHECK(g != 0);
  CHECK(names.counters().held == 1);
  // Node 1 may make it and may ask for it again; it must be asked back before anyone reads it,
  // node 1 included (it may have made the name).
  CHECK_FALSE(names.MustSettle("/d/a", 1, Intent::kMake));
  CHECK_FALSE(names.MustSettle("/d/a", 1, Intent::kReserve));
  CHECK(names.MustSettle("/d/a", 1, Intent::kRead));
  for (auto intent : {Intent::kRead, Intent::kMake, Intent::kReserve}) CHECK(names.MustSettle("/d/a", 2, intent));
  CHECK(names.MustSettleBelow("/d"));
  CHECK(names.MustSettleBelow("/"));
  CHECK_FALSE(names.MustSettleBelow("/e"));
  CHECK_FALSE(names.MustSettleBelow("/d/a"));  // nothing below the name itself
  {
    auto lock = names.Lock("/d/a");
    CHECK_FALSE(names.MayMake("/d/a", 2));  // another node's
  }
  // A release of an older grant changes nothing; the current one ends it.
  {
    auto lock = names.Lock("/d/a");
    uint64_t again = names.Reserve("/d/a", 1);
    CHECK(again != g);
    names.Release("/d/a", 1, g);
    CHECK(names.counters().held == 1);
    names.Release("/d/a", 2, again);  // not its holder
    CHECK(names.counters().held == 1);
    names.Release("/d/a", 1, again);
  }
  CHECK(names.counters().held == 0);
  CHECK_FALSE(names.MustSettle("/d/a", 2, Intent::kRead));
}

TEST_CASE("name reservations: settling asks the holder, stores what it made and ends the reservation", "[core]") {
  ManualClock clock;
  Holders h;
  NameReservations names(h.Recall(), &clock);
  auto reserve = [&](const std::string& path, NodeId holder) {
    auto lock = names.Lock(path);
    REQUIRE(names.MayMake(path, holder));
    return names.Reserve(path, holder);
  };
  reserve("/d/made", 1);
  reserve("/d/right", 1);
  h.made[1] = {Made("/d/made", 42)};
  // The holder making it itself: no question asked, its reservation ends with the make.
  names.Settle("/d/right", 1, Intent::kMake, h.Store());
  CHECK(h.asked.empty());
  {
    auto lock = names.Lock("/d/right");
    CHECK(names.MayMake("/d/right", 1));
    // Until its entry is stored, a reader must still find the reservation.
    CHECK(names.MustSettle("/d/right", 2, Intent::kRead));
    names.Made("/d/right", 1);
  }
  CHECK_FALSE(names.MustSettle("/d/right", 2, Intent::kRead));
  // Another node reads it: the holder is asked, what it made is stored.
  names.Settle("/d/made", 2, Intent::kRead, h.Store());
  REQUIRE(h.asked.size() == 1);
  CHECK(h.asked[0] == std::make_pair(NodeId{1}, std::vector<std::string>{"/d/made"}));
  REQUIRE(h.stored.size() == 1);
  CHECK(h.stored[0].first == 1);
  CHECK(h.stored[0].second.md.file_id == 42);
  CHECK(names.counters().held == 0);
  CHECK(names.counters().handed_over == 1);
  names.Settle("/d/made", 2, Intent::kRead, h.Store());  // nothing left to settle
  CHECK(h.asked.size() == 1);
  // A holder that cannot be reached made nothing that counts: the name is free again.
  reserve("/d/lost", 3);
  h.down.insert(3);
  names.Settle("/d/lost", 2, Intent::kMake, h.Store());
  CHECK(names.counters().recall_failed == 1);
  CHECK(h.stored.size() == 1);
  auto lock = names.Lock("/d/lost");
  CHECK(names.MayMake("/d/lost", 2));
  names.Made("/d/lost", 2);  // not its reservation: nothing to end
}

TEST_CASE("name reservations: a listing settles every name below its directory, one request per holder", "[core]") {
  ManualClock clock;
  Holders h;
  NameReservations names(h.Recall(), &clock);
  for (auto [path, holder] : std::vector<std::pair<std::string, NodeId>>{
           {"/d/a", 1}, {"/d/b", 2}, {"/d/c", 1}, {"/d/sub/x", 2}, {"/dd/y", 1}, {"/e/z", 3}}) {
    auto lock = names.Lock(path);
    REQUIRE(names.MayMake(path, holder));
    names.Reserve(path, holder);
  }
  h.made[1] = {Made("/d/c", 7)};
  h.made[2] = {Made("/d/sub/x", 8)};
  names.SettleBelow("/d", h.Store());
  REQUIRE(h.asked.size() == 2);
  std::map<NodeId, std::vector<std::string>> asked(h.asked.begin(), h.asked.end());
  CHECK(asked[1] == std::vector<std::string>{"/d/a", "/d/c"});
  CHECK(asked[2] == std::vector<std::string>{"/d/b", "/d/sub/x"});
  CHECK(h.stored.size() == 2);
  // "/dd/y" is not below "/d", and "/e/z" is elsewhere: both stand.
  CHECK(names.counters().held == 2);
  CHECK(names.MustSettle("/dd/y", 2, Intent::kRead));
  names.SettleBelow("/", h.Store());
  CHECK(names.counters().held == 0);
}

TEST_CASE("name reservations: an entry handed over while its own request was on its way is stored once", "[core]") {
  ManualClock clock;
  Holders h;
  NameReservations names(h.Recall(), &clock);
  {
    auto lock = names.Lock("/f");
    REQUIRE(names.MayMake("/f", 1));
    names.Reserve("/f", 1);
  }
  h.made[1] = {Made("/f", 9, /*in_flight=*/true)};
  names.Settle("/f", 2, Intent::kRead, h.Store());
  REQUIRE(h.stored.size() == 1);
  auto lock = names.Lock("/f");
  CHECK_FALSE(names.HandedOver("/f", 2, 9));   // another node's request
  CHECK_FALSE(names.HandedOver("/f", 1, 10));  // another file
  CHECK(names.HandedOver("/f", 1, 9));         // the request: its entry is there
  CHECK_FALSE(names.HandedOver("/f", 1, 9));   // once
  // Markers whose request never comes are dropped after a while (at the next settling).
  lock.unlock();
  {
    auto l = names.Lock("/g");
    REQUIRE(names.MayMake("/g", 1));
    names.Reserve("/g", 1);
  }
  h.made[1] = {Made("/g", 11, true)};
  names.Settle("/g", 2, Intent::kRead, h.Store());
  clock.Advance(NameReservations::kHandedOverKeepNs + 1);
  {
    auto l = names.Lock("/h");
    REQUIRE(names.MayMake("/h", 1));
    names.Reserve("/h", 1);
  }
  h.made[1].clear();
  names.Settle("/h", 2, Intent::kRead, h.Store());
  auto l = names.Lock("/g");
  CHECK_FALSE(names.HandedOver("/g", 1, 11));
}

TEST_CASE("name reservations: requests for a name being settled wait for it, and ask once", "[core]") {
  ManualClock clock;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  int asked = 0;
  NameReservations names(
      [&](NodeId, const std::vector<std::string>& paths) -> Result<std::vector<MadeEntry>> {
        std::unique_lock lock(mu);
        asked++;
        cv.notify_all();
        cv.wait(lock, [&] { return release; });
        return std::vector<MadeEntry>{Made(paths.front(), 5)};
      },
      &clock);
  {
    auto lock = names.Lock("/x");
    REQUIRE(names.MayMake("/x", 1));
    names.Reserve("/x", 1);
  }
  std::atomic<int> stored{0};
  auto store = [&](NodeId, const MadeEntry&) { stored++; };
  std::thread first([&] { names.Settle("/x", 2, Intent::kRead, store); });
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return asked == 1; }));
  }
  // Being settled: the holder's own make must wait too, and so must another reader.
  CHECK(names.MustSettle("/x", 1, Intent::kMake));
  {
    auto lock = names.Lock("/x");
    CHECK_FALSE(names.MayMake("/x", 1));
  }
  std::atomic<bool> second_done{false};
  std::thread second([&] {
    names.Settle("/x", 3, Intent::kRead, store);
    second_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(second_done);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  first.join();
  second.join();
  CHECK(asked == 1);
  CHECK(stored == 1);
  CHECK(names.counters().held == 0);
}

// A recall of leases that hands over what each holder made in the directory asked for.
NameReservations::RecallDir RecallDir(Holders& h, std::vector<std::pair<NodeId, std::string>>* asked) {
  return [&h, asked](NodeId holder, const std::string& dir) -> Result<std::vector<MadeEntry>> {
    std::lock_guard lock(h.mu);
    asked->emplace_back(holder, dir);
    if (h.down.count(holder)) return Status(EIO, "node down");
    std::vector<MadeEntry> out;
    for (const MadeEntry& e : h.made[holder]) {
      if (e.path.rfind(dir + "/", 0) == 0) out.push_back(e);
    }
    return out;
  };
}

NameReservations::ListNames Names(std::vector<std::string> names) {
  return [names](uint32_t limit) -> Result<std::vector<std::string>> {
    std::vector<std::string> out(names.begin(), names.begin() + std::min<size_t>(limit, names.size()));
    return out;
  };
}

TEST_CASE("name reservations: a leased directory is asked back before anyone else touches a name of it", "[core]") {
  ManualClock clock;
  Holders h;
  std::vector<std::pair<NodeId, std::string>> recalled;
  NameReservations names(h.Recall(), &clock, RecallDir(h, &recalled));
  auto lease = names.Lease("/d", 1, 0, Names({"old"}), h.Store());
  REQUIRE(lease.has_value());
  REQUIRE(lease->grant != 0);
  CHECK(lease->names == std::vector<std::string>{"old"});
  CHECK(names.LeaseHolder("/d") == 1);
  // The holder's own makes and reads wait for nothing; nobody else's may go ahead as it is.
  CHECK_FALSE(names.MustSettle("/d/a", 1, Intent::kMake));
  CHECK(names.MayMake("/d/a", 1));
  CHECK(names.MustSettle("/d/a", 2, Intent::kRead));
  CHECK_FALSE(names.MayMake("/d/a", 2));
  CHECK_FALSE(names.MustSettle("/e/a", 2, Intent::kRead));      // another directory
  CHECK_FALSE(names.MustSettle("/d/sub/a", 2, Intent::kRead));  // below it: not its names
  CHECK(names.MustSettleBelow("/d"));
  CHECK(names.MustSettleBelow("/"));
  CHECK_FALSE(names.MustSettleBelow("/e"));
  // Renewed by its grant, without names; another node is refused while it stands.
  CHECK(names.Lease("/d", 1, lease->grant, Names({"old", "x"}), h.Store()).value() == DirLease{lease->grant, {}});
  CHECK(names.Lease("/d", 2, 0, Names({}), h.Store()).value().grant == 0);
  h.made[1] = {Made("/d/a", 5), Made("/d/b", 6, /*in_flight=*/true)};
  names.Settle("/d/zz", 2, Intent::kMake, h.Store());
  REQUIRE(recalled.size() == 1);
  CHECK(recalled[0] == std::pair<NodeId, std::string>{1, "/d"});
  CHECK(h.stored.size() == 2);
  CHECK(names.LeaseHolder("/d") == NameReservations::kNoHolder);
  CHECK(names.HandedOver("/d/b", 1, 6));  // its request, when it comes, brings only its data
  CHECK(names.MayMake("/d/a", 2));
  CHECK(names.counters().lease_recalls == 1);
  // A renewal after the lease ended is a new lease, with the names.
  auto again = names.Lease("/d", 1, lease->grant, Names({"a", "b"}), h.Store());
  CHECK(again.value().grant != lease->grant);
  CHECK(again.value().names.size() == 2);
}

TEST_CASE("name reservations: listings above a leased directory ask it back, and a holder down made nothing",
          "[core]") {
  ManualClock clock;
  Holders h;
  std::vector<std::pair<NodeId, std::string>> recalled;
  NameReservations names(h.Recall(), &clock, RecallDir(h, &recalled));
  REQUIRE(names.Lease("/p/d", 1, 0, Names({}), h.Store()).value().grant != 0);
  REQUIRE(names.Lease("/p-q", 2, 0, Names({}), h.Store()).value().grant != 0);  // sorts between /p and /p/
  h.down.insert(1);
  names.SettleBelow("/p", h.Store());
  CHECK(recalled == std::vector<std::pair<NodeId, std::string>>{{1, "/p/d"}});
  CHECK(names.LeaseHolder("/p/d") == NameReservations::kNoHolder);
  CHECK(names.LeaseHolder("/p-q") == 2);
  CHECK(names.counters().recall_failed == 1);
}

TEST_CASE("name reservations: no lease over another's reservation, of many names, or of the root", "[core]") {
  ManualClock clock;
  Holders h;
  std::vector<std::pair<NodeId, std::string>> recalled;
  NameReservations names(h.Recall(), &clock, RecallDir(h, &recalled));
  {
    auto lock = names.Lock("/d/a");
    names.Reserve("/d/a", 2);
  }
  CHECK(names.Lease("/d", 1, 0, Names({}), h.Store()).value().grant == 0);
  CHECK(names.Lease("/d", 2, 0, Names({}), h.Store()).value().grant != 0);  // its own reservation is no bar
  std::vector<std::string> many(NameReservations::kMaxLeaseNames + 1, "n");
  CHECK(names.Lease("/big", 1, 0, Names(many), h.Store()).value().grant == 0);
  CHECK(names.Lease("/", 1, 0, Names({}), h.Store()).value().grant == 0);
  CHECK(names.Lease("/x/", 1, 0, Names({}), h.Store()).value().grant == 0);
  CHECK(names.Lease("rel", 1, 0, Names({}), h.Store()).value().grant == 0);
  NameReservations without(h.Recall(), &clock);  // nothing to ask a lease back with
  CHECK(without.Lease("/d", 1, 0, Names({}), h.Store()).value().grant == 0);
}

TEST_CASE("name reservations: with the most leases held, the oldest is asked back for a new one", "[core]") {
  ManualClock clock;
  Holders h;
  std::vector<std::pair<NodeId, std::string>> recalled;
  NameReservations names(h.Recall(), &clock, RecallDir(h, &recalled));
  for (size_t i = 0; i < NameReservations::kMaxLeases; ++i) {
    REQUIRE(names.Lease("/d" + std::to_string(i), 1, 0, Names({}), h.Store()).value().grant != 0);
  }
  CHECK(recalled.empty());
  REQUIRE(names.Lease("/new", 2, 0, Names({}), h.Store()).value().grant != 0);
  CHECK(recalled == std::vector<std::pair<NodeId, std::string>>{{1, "/d0"}});
  CHECK(names.LeaseHolder("/d0") == NameReservations::kNoHolder);
  CHECK(names.counters().leases_held == NameReservations::kMaxLeases);
}

}  // namespace
}  // namespace bb::fs
