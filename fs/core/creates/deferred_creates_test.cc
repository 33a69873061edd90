#include "fs/core/creates/deferred_creates.h"

#include <catch2/catch.hpp>
#include <map>

#include "fs/core/creates/create_streams.h"
#include "fs/core/service/node_service.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

// What a DeferredCreates sent, by owner; answers with `codes` (per path, default 0) or fails
// while `down`.
struct Owners {
  std::vector<std::tuple<NodeId, std::vector<MadeEntry>, std::vector<NameGrant>>> sent;
  std::map<std::string, int> codes;
  bool down = false;

  DeferredCreates::Send Send() {
    return [this](NodeId owner, const std::vector<MadeEntry>& made,
                  const std::vector<NameGrant>& released) -> Result<std::vector<int>> {
      sent.emplace_back(owner, made, released);
      if (down) return Status(EIO, "owner down");
      std::vector<int> out;
      for (const MadeEntry& e : made) out.push_back(codes.count(e.path) ? codes[e.path] : 0);
      return out;
    };
  }
};

Metadata File(uint64_t id, uint64_t size = 0) {
  Metadata md;
  md.file_id = id;
  md.size = size;
  return md;
}

// A long interval: the flusher thread never fires within a test; Flush is called by hand.
constexpr auto kLong = std::chrono::hours(1);

// As a lookup asks the owner, which grants the name.
void Grant(DeferredCreates& d, const std::string& path, NodeId owner, uint64_t grant) {
  d.Asking(path);
  d.Granted(path, owner, grant);
}

TEST_CASE("deferred creates: a right answers absent, an entry made on it answers itself, until handed over", "[core]") {
  ManualClock clock;
  Owners owners;
  DeferredCreates d(owners.Send(), kLong, 100, &clock);
  Metadata md;
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kNothing);
  CHECK_FALSE(d.Make("/a", File(1)));  // no right: made at the owner
  Grant(d, "/a", 3, 17);
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kAbsent);
  REQUIRE(d.Make("/a", File(1)));
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kMade);
  CHECK(md.file_id == 1);
  // Writes grow the waiting entry; a write of another file does not.
  MetaUpdate grow;
  grow.grow_to = 100;
  CHECK(d.Update("/a", 1, grow));
  CHECK_FALSE(d.Update("/a", 2, grow));
  // The owner asks: the entry goes to it, with its size; rights of other names go too.
  Grant(d, "/b", 3, 18);
  CHECK(d.HandOver({"/a", "/b"}, 4).empty());  // another node asks: not its names
  auto handed = d.HandOver({"/a", "/b", "/c"}, 3);
  REQUIRE(handed.size() == 1);
  CHECK(handed[0].path == "/a");
  CHECK(handed[0].md.size == 100);
  CHECK_FALSE(handed[0].in_flight);
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kNothing);
  CHECK(d.Find("/b", &md) == DeferredCreates::Known::kNothing);
  CHECK(d.waiting() == 0);
  REQUIRE(d.Flush().ok());
  CHECK(owners.sent.empty());  // nothing left to send
  CHECK(d.counters().handed_over == 1);
}

TEST_CASE("deferred creates: a batch per owner, rights unused for an interval given up, failures sent again",
          "[core]") {
  ManualClock clock;
  Owners owners;
  DeferredCreates d(owners.Send(), kLong, 100, &clock);
  // Rights used at once, one not yet, one long unused.
  Grant(d, "/old", 1, 5);
  clock.Advance(std::chrono::nanoseconds(kLong).count() + 1);
  Grant(d, "/x", 1, 6);
  Grant(d, "/y", 2, 7);
  Grant(d, "/young", 2, 8);
  REQUIRE(d.Make("/x", File(10)));
  REQUIRE(d.Make("/y", File(11)));
  REQUIRE(d.Flush().ok());
  REQUIRE(owners.sent.size() == 2);
  std::map<NodeId, std::pair<std::vector<MadeEntry>, std::vector<NameGrant>>> by_owner;
  for (auto& [owner, made, released] : owners.sent) by_owner[owner] = {made, released};
  REQUIRE(by_owner[1].first.size() == 1);
  CHECK(by_owner[1].first[0].md.file_id == 10);
  CHECK(by_owner[1].second == std::vector<NameGrant>{{"/old", 5}});
  REQUIRE(by_owner[2].first.size() == 1);
  CHECK(by_owner[2].second.empty());  // "/young" is kept
  Metadata md;
  CHECK(d.Find("/young", &md) == DeferredCreates::Known::kAbsent);
  CHECK(d.Find("/x", &md) == DeferredCreates::Known::kNothing);
  CHECK(d.counters().released == 1);
  // An owner down: the entries stay, and go with a later flush; a refusal counts as lost.
  owners.sent.clear();
  Grant(d, "/z", 1, 9);
  REQUIRE(d.Make("/z", File(12)));
  owners.down = true;
  CHECK_FALSE(d.Flush().ok());
  CHECK(d.Find("/z", &md) == DeferredCreates::Known::kMade);
  CHECK(d.counters().retried == 1);
  owners.down = false;
  owners.codes["/z"] = EEXIST;
  REQUIRE(d.Flush().ok());
  CHECK(d.Find("/z", &md) == DeferredCreates::Known::kNothing);
  CHECK(d.counters().lost == 1);
}

TEST_CASE("deferred creates: an entry its owner cannot store for now waits and goes again, not lost", "[core]") {
  // A full store at the owner (fsstress on a full disk lost files whose create had returned).
  ManualClock clock;
  Owners owners;
  DeferredCreates d(owners.Send(), kLong, 100, &clock);
  Metadata md;
  for (int code : {ENOSPC, EIO, EAGAIN}) {
    std::string path = "/f" + std::to_string(code);
    Grant(d, path, 1, 20 + code);
    REQUIRE(d.Make(path, File(30 + code)));
    owners.codes[path] = code;
    CHECK(d.Flush().ok());  // the batch itself went
    CHECK(d.Find(path, &md) == DeferredCreates::Known::kMade);
    CHECK(d.SendNow(path).code() == code);  // an fsync now says why
    CHECK(d.Find(path, &md) == DeferredCreates::Known::kMade);
    owners.codes.erase(path);
    REQUIRE(d.Flush().ok());
    CHECK(d.Find(path, &md) == DeferredCreates::Known::kNothing);
  }
  CHECK(d.counters().lost == 0);
  CHECK(d.counters().retried == 6);
  CHECK(d.waiting() == 0);
}

TEST_CASE("deferred creates: an owner past its reserve still stores an entry on a name it reserved", "[core]") {
  // The reservation said there was room (ReserveName): the create has returned on its node since.
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto owner = NewLocalNodeService(meta.get(), chunks.get(), {"/", uint64_t{1} << 62});  // never room
  Metadata md = File(7);
  CHECK(owner->CreateMeta("/a", md).code() == ENOSPC);
  auto codes = owner->MakeEntries({{"/b", md, false}}, {});
  REQUIRE(codes.has_value());
  CHECK(*codes == std::vector<int>{0});
  auto stored = owner->GetMeta("/b");
  REQUIRE(stored.has_value());
  CHECK(stored->file_id == 7);
}

TEST_CASE("deferred creates: an entry carried by a request is handed over as in flight, and not sent twice", "[core]") {
  ManualClock clock;
  Owners owners;
  DeferredCreates d(owners.Send(), kLong, 100, &clock);
  Grant(d, "/w", 4, 1);
  REQUIRE(d.Make("/w", File(20)));
  MetaUpdate u;
  u.grow_to = 3901;
  auto carried = d.Take("/w", 20, u);
  REQUIRE(carried.has_value());
  CHECK(carried->size == 3901);
  CHECK_FALSE(d.Take("/w", 20, u).has_value());  // carried once
  CHECK_FALSE(d.Update("/w", 20, u));            // its size goes with the request now
  REQUIRE(d.Flush().ok());
  CHECK(owners.sent.empty());  // on its way already
  auto handed = d.HandOver({"/w"}, 4);
  REQUIRE(handed.size() == 1);
  CHECK(handed[0].in_flight);
  CHECK(handed[0].md.size == 3901);
  d.Taken("/w", 20, true);  // the request came back: nothing left to do
  CHECK(d.counters().with_write == 0);
  // A request that failed leaves its entry to the next batch.
  Grant(d, "/v", 4, 2);
  REQUIRE(d.Make("/v", File(21)));
  REQUIRE(d.Take("/v", 21, u).has_value());
  d.Taken("/v", 21, false);
  REQUIRE(d.Flush().ok());
  REQUIRE(owners.sent.size() == 1);
  CHECK(std::get<1>(owners.sent[0]).at(0).md.file_id == 21);
  // One that arrived is done.
  Grant(d, "/u", 4, 3);
  REQUIRE(d.Make("/u", File(22)));
  REQUIRE(d.Take("/u", 22, u).has_value());
  d.Taken("/u", 22, true);
  CHECK(d.counters().with_write == 1);
  CHECK(d.waiting() == 0);
}

TEST_CASE("deferred creates: rights dropped by a make at the owner, room bounded, the rest sent at the end", "[core]") {
  ManualClock clock;
  Owners owners;
  {
    DeferredCreates d(owners.Send(), kLong, 2, &clock);
    Grant(d, "/a", 1, 1);
    d.Forget("/a");  // made at its owner (a mkdir, say): the owner ends the reservation itself
    Metadata md;
    CHECK(d.Find("/a", &md) == DeferredCreates::Known::kNothing);
    Grant(d, "/b", 1, 2);
    REQUIRE(d.Make("/b", File(30)));
    d.Forget("/b");  // a made entry is not forgotten
    CHECK(d.Find("/b", &md) == DeferredCreates::Known::kMade);
    CHECK(d.HasRoom());
    Grant(d, "/c", 1, 3);
    CHECK_FALSE(d.HasRoom());
    CHECK(d.SendNow("/b").ok());  // fsync: at its owner now
    CHECK(d.Find("/b", &md) == DeferredCreates::Known::kNothing);
    REQUIRE(d.Make("/c", File(31)));
  }  // the destructor sends what waits
  REQUIRE(owners.sent.size() == 2);
  CHECK(std::get<1>(owners.sent[1]).at(0).path == "/c");
}

TEST_CASE("deferred creates: a grant that its owner asked back for before it arrived is void", "[core]") {
  ManualClock clock;
  Owners owners;
  DeferredCreates d(owners.Send(), kLong, 100, &clock);
  Metadata md;
  // The owner settled the name (a listing, another node's lookup) while its grant was on its way.
  d.Asking("/a");
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kNothing);  // still asks its owner
  CHECK(d.HandOver({"/a"}, 1).empty());
  d.Granted("/a", 1, 5);
  CHECK(d.Find("/a", &md) == DeferredCreates::Known::kNothing);
  CHECK_FALSE(d.Make("/a", File(1)));  // made at the owner instead
  CHECK(d.waiting() == 0);
  // Refused (the name was there): nothing kept either; a grant never asked for is ignored.
  d.Asking("/b");
  d.Refused("/b");
  d.Granted("/c", 1, 6);
  CHECK(d.waiting() == 0);
  CHECK(d.counters().granted == 0);
}

TEST_CASE("create streams: a process making small files in a directory expects the next one small", "[core]") {
  CreateStreams s;
  int64_t t = 1'000'000'000'000;
  CHECK_FALSE(s.ExpectSmall(7, "/d", t));  // the first file of a stream
  s.Created(7, "/d", t);
  CHECK(s.ExpectSmall(7, "/d", t + 1));
  CHECK_FALSE(s.ExpectSmall(8, "/d", t + 1));                             // another process
  CHECK_FALSE(s.ExpectSmall(7, "/e", t + 1));                             // another directory
  CHECK_FALSE(s.ExpectSmall(7, "/d", t + CreateStreams::kWindowNs + 1));  // a pause longer than the window
  // A file that turned out large: not for the window after it, then again.
  s.Large(7, "/d", t + 2);
  s.Created(7, "/d", t + 3);
  CHECK_FALSE(s.ExpectSmall(7, "/d", t + 4));
  s.Created(7, "/d", t + CreateStreams::kWindowNs + 3);
  CHECK(s.ExpectSmall(7, "/d", t + CreateStreams::kWindowNs + 4));
  // Bounded: past its capacity the oldest streams go, recent ones stay.
  for (int p = 0; p < static_cast<int>(CreateStreams::kCapacity) + 10; ++p) s.Created(1000 + p, "/f", t + 10 + p);
  CHECK(s.ExpectSmall(1000 + CreateStreams::kCapacity + 9, "/f", t + CreateStreams::kCapacity + 20));
  CHECK_FALSE(s.ExpectSmall(1000, "/f", t + CreateStreams::kCapacity + 20));
}

TEST_CASE("deferred creates: a directory's lease asked back hands over its owner's entries there, and voids askings",
          "[core]") {
  ManualClock clock;
  Owners o;
  DeferredCreates d(o.Send(), kLong, 100, &clock);
  Grant(d, "/d/a", 2, 7);
  REQUIRE(d.Make("/d/a", File(1)));
  Grant(d, "/d/b", 2, 7);  // a right, unused
  Grant(d, "/d/c", 3, 8);  // another owner's
  REQUIRE(d.Make("/d/c", File(3)));
  Grant(d, "/e/a", 2, 9);  // another directory
  REQUIRE(d.Make("/e/a", File(4)));
  REQUIRE(d.Take("/d/a", 1, MetaUpdate{}).has_value());  // on its way with its first write
  d.Asking("/d/x");                                      // a lookup asking meanwhile
  CHECK(d.Waiting("/d", 2) == std::vector<std::string>{"/d/a"});
  auto handed = d.HandOverDir("/d", 2);
  REQUIRE(handed.size() == 1);
  CHECK(handed[0].path == "/d/a");
  CHECK(handed[0].in_flight);
  Metadata md;
  CHECK(d.Find("/d/b", &md) == DeferredCreates::Known::kNothing);  // the right went too
  CHECK(d.Find("/d/c", &md) == DeferredCreates::Known::kMade);
  CHECK(d.Find("/e/a", &md) == DeferredCreates::Known::kMade);
  d.Granted("/d/x", 2, 7);  // its grant came from the lease just given back: void
  CHECK(d.Find("/d/x", &md) == DeferredCreates::Known::kNothing);
  CHECK(d.Waiting("/d", 2).empty());
}

}  // namespace
}  // namespace bb::fs
