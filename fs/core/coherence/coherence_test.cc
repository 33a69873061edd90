// Callbacks and the coherent view: who is told of what, on two in-process nodes whose "kernels"
// record what they are told.
#include "fs/core/coherence/coherence.h"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "fs/core/coherence/coherent_view.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

constexpr int64_t kHold = 2'000'000'000;

TEST_CASE("a callback names the nodes that read a path, except the one changing it, once", "[coherence]") {
  ManualClock clock;
  CallbackTable t(kHold, &clock);
  t.Register("/a", 1);
  t.Register("/a", 2);
  t.Register("/a", 1);  // once per node
  CHECK(t.Take("/a", 2, true) == std::vector<NodeId>{1});
  // Node 1 was told: its registration ended. Node 2 made the change and caches it: it stays.
  CHECK(t.Take("/a", 9, true) == std::vector<NodeId>{2});
  CHECK(t.Take("/a", 9, true).empty());
  t.Register("/b", 3);
  clock.Advance(kHold + 1);  // one rotation: still held
  t.Register("/c", 3);
  CHECK(t.Take("/b", 9, true) == std::vector<NodeId>{3});
  clock.Advance(2 * kHold + 1);  // two holds later: every registration has gone
  CHECK(t.Take("/c", 9, true).empty());
  CHECK(t.size() == 0);
}

TEST_CASE("told of changed attributes, a node stays registered for its name until told of that", "[coherence]") {
  // A kernel told of attributes drops them and keeps the entry: a later rename or unlink of the
  // name must still reach it, or it would answer the old name with the old file.
  ManualClock clock;
  CallbackTable t(kHold, &clock);
  t.Register("/a", 1);
  t.Register("/a", 2);
  CHECK(t.Take("/a", 9, false) == std::vector<NodeId>{1, 2});
  CHECK(t.Take("/a", 9, false).empty());  // they hold no attributes now: nothing to tell
  t.Register("/a", 1);                    // node 1 read the attributes again
  CHECK(t.Take("/a", 2, false) == std::vector<NodeId>{1});
  CHECK(t.Take("/a", 9, true) == std::vector<NodeId>{1, 2});  // the name: both, then nobody
  CHECK(t.Take("/a", 9, true).empty());
  CHECK(t.size() == 0);
}

TEST_CASE("a full table gives its oldest registrations up, to be told, and still finds them meanwhile", "[coherence]") {
  ManualClock clock;
  CallbackTable t(kHold, &clock, /*capacity=*/4);
  t.Register("/a", 1);
  t.Register("/b", 2);
  clock.Advance(kHold + 1);  // a rotation: /a and /b are the older generation
  t.Register("/c", 1);
  t.Register("/d", 1);
  CHECK_FALSE(t.HasBreak());
  CHECK(t.NextBreak(10).empty());
  CHECK(t.Register("/e", 3));  // the fifth: the older generation goes
  CHECK(t.HasBreak());
  auto slice = t.NextBreak(1);  // a slice at a time
  REQUIRE(slice.size() == 1);
  CHECK(t.size() == 5);
  // A change before its holders were told still finds them, in the slice being told or not.
  std::string told = slice.begin()->first, other = told == "/a" ? "/b" : "/a";
  CHECK(t.Take(other, 9, true) == std::vector<NodeId>{other == "/a" ? NodeId{1} : NodeId{2}});
  CHECK(t.Take(told, 9, true) == std::vector<NodeId>{told == "/a" ? NodeId{1} : NodeId{2}});
  t.DoneBreak();
  CHECK(t.NextBreak(10).empty());
  CHECK_FALSE(t.HasBreak());
  CHECK(t.size() == 3);
}

TEST_CASE("a hold of 0 keeps nothing", "[coherence]") {
  ManualClock clock;
  CallbackTable t(0, &clock);
  t.Register("/a", 1);
  CHECK(t.size() == 0);
  CHECK(t.Take("/a", 0, true).empty());
}

// Node 0 owns the entries; node 1 and node 2 read them through node 0's views as themselves, and
// record what their kernels are told.
struct TwoReaders {
  ManualClock clock;
  std::unique_ptr<MetaStore> meta = NewMemoryMetaStore();
  std::unique_ptr<ChunkStore> chunks = NewMemoryChunkStore();
  std::unique_ptr<NodeService> local = NewLocalNodeService(meta.get(), chunks.get(), {});
  std::unique_ptr<MetaStore> meta1 = NewMemoryMetaStore();
  std::unique_ptr<NodeService> local1 = NewLocalNodeService(meta1.get(), chunks.get(), {});
  Coherence c1{NodeView{3, 1}, kHold, &clock, nullptr};
  CoherentView node1{local1.get(), &c1, 0};  // how node 1 serves node 0's invalidations
  // Node 2 cannot be reached until node2_down is cleared.
  bool node2_down = true;
  std::unique_ptr<MetaStore> meta2 = NewMemoryMetaStore();
  std::unique_ptr<NodeService> local2 = NewLocalNodeService(meta2.get(), chunks.get(), {});
  Coherence c2{NodeView{3, 2}, kHold, &clock, nullptr};
  CoherentView node2{local2.get(), &c2, 0};
  Coherence c0{NodeView{3, 0},
               kHold,
               &clock,
               [this](NodeId n) -> NodeService* {
                 if (n == 1) return &node1;
                 return node2_down ? nullptr : &node2;
               },
               nullptr,
               SIZE_MAX,
               std::chrono::milliseconds(0)};  // the tests call Catchup
  std::mutex mu;
  std::vector<Invalidation> told1, told0, told2;

  TwoReaders() {
    c1.SetKernel([this](const std::vector<Invalidation>& items) {
      std::lock_guard lock(mu);
      told1.insert(told1.end(), items.begin(), items.end());
    });
    c0.SetKernel([this](const std::vector<Invalidation>& items) {
      std::lock_guard lock(mu);
      told0.insert(told0.end(), items.begin(), items.end());
    });
    c2.SetKernel([this](const std::vector<Invalidation>& items) {
      std::lock_guard lock(mu);
      told2.insert(told2.end(), items.begin(), items.end());
    });
  }
  CoherentView As(NodeId caller) { return CoherentView(local.get(), &c0, caller); }
  void Put(const std::string& path) {
    Metadata md;
    md.file_id = std::hash<std::string>()(path);
    REQUIRE(local->PutMeta(path, md).ok());
  }
};

uint64_t Id(const std::string& path) { return std::hash<std::string>()(path); }

TEST_CASE("a change is told to every node that read the entry, and to no other", "[coherence]") {
  TwoReaders t;
  t.Put("/a");
  t.Put("/b");
  REQUIRE(t.As(1).GetMeta("/a").has_value());
  REQUIRE(t.As(0).GetMeta("/a").has_value());  // the owner's own kernel reads it too
  MetaUpdate chmod;
  chmod.mode = 0600;
  SECTION("another node changes it: the readers' kernels are told") {
    REQUIRE(t.As(2).UpdateMeta("/a", chmod).has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/a", false}});
    CHECK(t.told0 == std::vector<Invalidation>{{"/a", false}});
    CHECK(t.c0.stats().sent == 1);
    // The changing node now holds the new attributes: a change by node 1 tells it (it cannot
    // be reached here: counted as failed, and the change still succeeds).
    REQUIRE(t.As(1).UpdateMeta("/a", chmod).has_value());
    CHECK(t.c0.stats().failed == 1);
    CHECK(t.told1.size() == 1);  // node 1 made that change: not told of its own
  }
  SECTION("a reader told of changed attributes is still told when the name moves") {
    // Its kernel kept the entry: without the second telling it would answer the old name with
    // the moved file.
    REQUIRE(t.As(2).UpdateMeta("/a", chmod).has_value());
    REQUIRE(t.As(2).MoveMeta("/a", "/moved", 0).has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/a", false}, {"/a", true, Id("/a"), "/moved"}});
  }
  SECTION("a removed name is told as an entry; a name never read is told to nobody") {
    REQUIRE(t.As(2).RemoveMeta("/a").has_value());
    REQUIRE(t.As(2).RemoveMeta("/b").has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/a", true}});
  }
  SECTION("a move tells the readers of both names, and those of the old one where its file went") {
    REQUIRE(t.As(1).GetMeta("/b").has_value());
    REQUIRE(t.As(0).MoveMeta("/a", "/b", 0).has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/a", true, Id("/a"), "/b"}, {"/b", true}});
    CHECK(t.told0.empty());  // node 0 made it
  }
  SECTION("a move to another node's name tells the readers of the old one where its file went") {
    REQUIRE(t.As(2).MoveOutMeta("/a", "/elsewhere").has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/a", true, Id("/a"), "/elsewhere"}});
    CHECK(t.As(1).GetMeta("/a").error().code() == ENOENT);
  }
  SECTION("a linked file's name removed: its readers learn that the file lives on") {
    Metadata name;
    name.file_id = 77;
    name.link = LinkRole::kName;
    REQUIRE(t.local->PutMeta("/n", name).ok());
    REQUIRE(t.As(1).GetMeta("/n").has_value());
    REQUIRE(t.As(2).RemoveMeta("/n").has_value());
    CHECK(t.told1 == std::vector<Invalidation>{{"/n", true, 77, ""}});
  }
  SECTION("a directory's entry changes are told to nobody") {
    MetaUpdate touch;
    touch.touch_ns = 5;
    touch.subdirs = 1;
    REQUIRE(t.As(2).UpdateMeta("/a", touch).has_value());
    CHECK(t.told1.empty());
    CHECK(t.c0.table().size() == 1);  // node 1's registration stays
  }
  SECTION("a failed change tells nobody") {
    CHECK(t.As(2).RemoveMeta("/none").error().code() == ENOENT);
    CHECK(t.told1.empty());
  }
  SECTION("a tool (no node id) registers nothing") {
    REQUIRE(t.As(NodeId{0xffffffffu}).GetMeta("/b").has_value());
    REQUIRE(t.As(1).RemoveMeta("/b").has_value());
    CHECK(t.c0.stats().sent == 0);
  }
  SECTION("a workspace dropped on a node leaves its kernel") {
    CHECK(t.As(2).DropWorkspace("ws").ok());
    CHECK(t.told0 == std::vector<Invalidation>{{"/ws", true}});
  }
}

TEST_CASE("a page with attributes registers its reader for every entry on it", "[coherence]") {
  TwoReaders t;
  for (const char* p : {"/d", "/d/a", "/d/b", "/d/c", "/e"}) t.Put(p);
  auto page = t.As(1).ListAttrs("/d", "", 10);
  REQUIRE(page.has_value());
  REQUIRE(page->entries.size() == 3);
  CHECK(page->entries[1].name == "b");
  CHECK(page->last == "c");
  MetaUpdate chmod;
  chmod.mode = 0600;
  REQUIRE(t.As(2).UpdateMeta("/d/b", chmod).has_value());
  REQUIRE(t.As(2).RemoveMeta("/d/c").has_value());
  REQUIRE(t.As(2).RemoveMeta("/e").has_value());  // not on the page
  CHECK(t.told1 == std::vector<Invalidation>{{"/d/b", false}, {"/d/c", true}});
  // The root's entries are named "/x", not "//x".
  REQUIRE(t.As(1).ListAttrs("/", "", 10).has_value());
  REQUIRE(t.As(2).RemoveMeta("/d").has_value());
  CHECK(t.told1.back() == Invalidation{"/d", true});
}

TEST_CASE("a node that did not answer is owed what it missed, told once it answers, and not waited for meanwhile",
          "[coherence]") {
  TwoReaders t;
  t.Put("/a");
  t.Put("/b");
  REQUIRE(t.As(2).GetMeta("/a").has_value());  // node 2 cannot be reached
  REQUIRE(t.As(2).GetMeta("/b").has_value());
  MetaUpdate chmod;
  chmod.mode = 0600;
  REQUIRE(t.As(1).UpdateMeta("/a", chmod).has_value());
  CHECK(t.c0.stats().failed == 1);
  CHECK(t.c0.stats().owed == 1);
  // The next change for node 2 joins what it is owed: no call, no wait.
  REQUIRE(t.As(1).UpdateMeta("/b", chmod).has_value());
  CHECK(t.c0.stats().failed == 1);
  CHECK(t.c0.stats().owed == 2);
  t.c0.Catchup();  // still unreachable: still owed
  CHECK(t.c0.stats().failed == 3);
  // Reachable again: told both.
  t.node2_down = false;
  t.c0.Catchup();
  CHECK(t.told2 == std::vector<Invalidation>{{"/a", false}, {"/b", false}});
  t.c0.Catchup();  // even: nothing more
  CHECK(t.told2.size() == 2);
  SECTION("past kMaxOwed, it is owed everything instead, and still where files went") {
    t.node2_down = true;
    t.Put("/moved");
    REQUIRE(t.As(2).GetMeta("/moved").has_value());
    REQUIRE(t.As(1).MoveMeta("/moved", "/there", 0).has_value());
    for (size_t i = 0; i <= Coherence::kMaxOwed; ++i) {
      std::string p = "/many/" + std::to_string(i);
      t.Put(p);
      REQUIRE(t.As(2).GetMeta(p).has_value());
      REQUIRE(t.As(1).RemoveMeta(p).has_value());
    }
    t.Put("/later");
    REQUIRE(t.As(2).GetMeta("/later").has_value());
    REQUIRE(t.As(1).MoveMeta("/later", "/elsewhere", 0).has_value());
    t.node2_down = false;
    t.told2.clear();
    t.c0.Catchup();
    CHECK(t.told2 == std::vector<Invalidation>{kDropEverything,
                                               {"/moved", true, Id("/moved"), "/there"},
                                               {"/later", true, Id("/later"), "/elsewhere"}});
  }
}

TEST_CASE("a node that starts again has every other node drop its caches, one unreachable once it answers",
          "[coherence]") {
  // It kept no registrations: a change it serves afterwards could not be told to a kernel that
  // cached the name before.
  TwoReaders t;
  t.c0.DropEverywhere();
  CHECK(t.told1 == std::vector<Invalidation>{kDropEverything});
  CHECK(t.told2.empty());  // node 2 is down: owed it
  CHECK(t.told0.empty());  // not itself
  t.node2_down = false;
  t.c0.Catchup();
  CHECK(t.told2 == std::vector<Invalidation>{kDropEverything});
}

TEST_CASE("the holders of registrations given up for room are told to drop them", "[coherence]") {
  ManualClock clock;
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  auto meta1 = NewMemoryMetaStore();
  auto local1 = NewLocalNodeService(meta1.get(), chunks.get(), {});
  Coherence c1{NodeView{2, 1}, kHold, &clock, nullptr};
  std::vector<Invalidation> told1;
  std::mutex mu;
  c1.SetKernel([&](const std::vector<Invalidation>& items) {
    std::lock_guard lock(mu);
    told1.insert(told1.end(), items.begin(), items.end());
  });
  CoherentView node1{local1.get(), &c1, 0};
  Coherence c0{NodeView{2, 0},
               kHold,
               &clock,
               [&](NodeId) -> NodeService* { return &node1; },
               nullptr,
               3,
               std::chrono::milliseconds(0)};
  CoherentView as1(local.get(), &c0, 1);
  for (const char* p : {"/a", "/b", "/c", "/d"}) {
    REQUIRE(local->PutMeta(p, Metadata{}).ok());
    REQUIRE(as1.GetMeta(p).has_value());
  }
  c0.Catchup();
  std::lock_guard lock(mu);
  CHECK(told1.size() == 4);  // the whole generation: the table held 4 > 3
  CHECK(std::find(told1.begin(), told1.end(), Invalidation{"/a", true}) != told1.end());
  CHECK(c0.stats().broken == 4);
  CHECK(c0.table().size() == 0);
}

TEST_CASE("a reader registered before the change is told even when its read raced the change", "[coherence]") {
  // The view registers before it reads: a change applied between the two still finds the
  // registration, so no reader caches what it read then without being told.
  TwoReaders t;
  t.Put("/a");
  t.c0.table().Register("/a", 1);  // node 1's read has registered and not yet read
  REQUIRE(t.As(2).RemoveMeta("/a").has_value());
  CHECK(t.told1 == std::vector<Invalidation>{{"/a", true}});
}

TEST_CASE("reads of a path no other node can reach register nobody", "[coherence]") {
  ManualClock clock;
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  Coherence c(NodeView{2, 0}, kHold, &clock, nullptr, [](const std::string& p) { return p.rfind("/priv/", 0) == 0; });
  CoherentView self(local.get(), &c, 0);
  REQUIRE(local->PutMeta("/priv/a", Metadata{}).ok());
  REQUIRE(local->PutMeta("/a", Metadata{}).ok());
  REQUIRE(self.GetMeta("/priv/a").has_value());
  CHECK(c.table().size() == 0);
  REQUIRE(self.GetMeta("/a").has_value());
  CHECK(c.table().size() == 1);
}

// A kernel that takes nothing while `held` (as one whose directory lock this node's own create
// holds, while that create waits for the change being told), recording what it took.
struct HeldKernel {
  ManualClock clock;
  Coherence c{NodeView{2, 1}, kHold, &clock, nullptr};
  std::mutex mu;
  std::condition_variable cv;
  bool held = true;
  bool entered = false;  // the notifier is in the kernel
  std::vector<std::vector<Invalidation>> told;
  bool own_call = false;  // what KernelHooks::held answers

  explicit HeldKernel(bool with_held_hook = false) {
    KernelHooks hooks;
    hooks.drop = [this](const std::vector<Invalidation>& items) {
      std::unique_lock lock(mu);
      entered = true;
      cv.notify_all();
      cv.wait(lock, [&] { return !held; });
      told.push_back(items);
      cv.notify_all();
    };
    if (with_held_hook) hooks.held = [this](const std::vector<Invalidation>&) { return own_call; };
    c.SetKernel(std::move(hooks));
  }
  void WaitEntered() {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return entered; }));
  }
  void Release() {
    std::lock_guard lock(mu);
    held = false;
    cv.notify_all();
  }
  // Waits until the kernel took `n` batches; what it took, flattened.
  std::vector<Invalidation> Took(size_t n) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return told.size() >= n; });
    std::vector<Invalidation> all;
    for (const auto& b : told) all.insert(all.end(), b.begin(), b.end());
    return all;
  }
};

TEST_CASE("a kernel held up by a call of its own is not waited for past kKernelWait, and gets it all after",
          "[coherence]") {
  HeldKernel k;
  auto start = std::chrono::steady_clock::now();
  k.c.ToKernel({{"/d/a", true}});
  auto first = std::chrono::steady_clock::now() - start;
  CHECK(first >= Coherence::kKernelWait);
  CHECK(first < Coherence::kKernelWait * 200);  // bounded: not the RPC deadline
  CHECK(k.c.stats().deferred == 1);
  k.WaitEntered();
  // Held up that long already: the next one is not waited for at all (it is queued).
  std::this_thread::sleep_for(Coherence::kKernelWait);
  start = std::chrono::steady_clock::now();
  k.c.ToKernel({{"/d/b", true}, {"/d/c", false}});
  CHECK(std::chrono::steady_clock::now() - start < Coherence::kKernelWait);
  CHECK(k.c.stats().deferred == 3);
  CHECK(k.Took(0).empty());
  k.Release();
  // Once free, the kernel gets everything, in order.
  CHECK(k.Took(2) == std::vector<Invalidation>{{"/d/a", true}, {"/d/b", true}, {"/d/c", false}});
  k.c.ToKernel({{"/d/e", true}});
  CHECK(k.Took(3).back() == Invalidation{"/d/e", true});
  CHECK(k.c.stats().received == 4);
}

TEST_CASE("the kernel's hooks are not taken away while the kernel is told, and a deadline says so", "[coherence]") {
  HeldKernel k;
  k.c.ToKernel({{"/d/a", true}});
  k.WaitEntered();  // the notifier waits in the kernel
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(k.c.SetKernel(KernelHooks{}, std::chrono::milliseconds(50)));
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(50));
  k.Release();  // what an aborted connection does: the kernel answers
  CHECK(k.Took(1) == std::vector<Invalidation>{{"/d/a", true}});
  CHECK(k.c.SetKernel(KernelHooks{}, std::chrono::seconds(10)));
  // Without a kernel nothing more is handed to the old hooks.
  k.c.ToKernel({{"/d/b", true}});
  CHECK(k.Took(1).size() == 1);
}

TEST_CASE("a kernel held by this node's own call is not waited for at all", "[coherence]") {
  HeldKernel k(true);
  k.own_call = true;
  auto start = std::chrono::steady_clock::now();
  k.c.ToKernel({{"/d/a", true}});
  CHECK(std::chrono::steady_clock::now() - start < Coherence::kKernelWait);
  CHECK(k.c.stats().deferred == 1);
  k.Release();
  CHECK(k.Took(1) == std::vector<Invalidation>{{"/d/a", true}});
  // A command that must not return before the kernel dropped it waits regardless of `held`.
  k.c.ToKernel({{"/d/b", true}}, std::chrono::seconds(10));
  CHECK(k.Took(2).back() == Invalidation{"/d/b", true});
  CHECK(k.c.stats().deferred == 1);
}

TEST_CASE("a kernel held up past kMaxKernelQueue invalidations is told to drop everything once free", "[coherence]") {
  HeldKernel k;
  k.c.ToKernel({{"/first", true}});  // taken by the notifier, which the kernel holds up
  k.WaitEntered();
  std::this_thread::sleep_for(Coherence::kKernelWait);  // held up long enough: nothing more waits
  std::vector<Invalidation> batch;
  for (size_t i = 0; i < 2048; ++i) batch.push_back({"/d/" + std::to_string(i), true});
  for (size_t i = 0; i <= Coherence::kMaxKernelQueue / batch.size(); ++i) k.c.ToKernel(batch);
  k.Release();
  CHECK(k.Took(2) == std::vector<Invalidation>{{"/first", true}, kDropEverything});
}

TEST_CASE("a call in flight holds its inode while it or a copy of its hold lives", "[coherence]") {
  KernelCallsInFlight calls;
  CHECK_FALSE(calls.Holds(42));
  {
    KernelCallsInFlight::Hold h = calls.Of(42);
    CHECK(calls.Holds(42));
    {
      auto copy = h;  // a lambda that captured the hold, copied into a std::function
      CHECK(calls.Holds(42));
    }
    CHECK(calls.Holds(42));
    std::function<void()> body = [h] {};
    std::function<void()> body2 = body;
  }
  CHECK_FALSE(calls.Holds(42));
}

}  // namespace
}  // namespace bb::fs
