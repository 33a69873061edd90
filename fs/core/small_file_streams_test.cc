// Streams of small files (create_streams.h) on a coherent cluster of in-process nodes
// (test_cluster.h): names reserved at lookup, entries made on the creating node and stored at
// their owners later (deferred_creates.h), and what every other node sees meanwhile
// (name_reservations.h).
#include <fcntl.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;

constexpr uint32_t kNodes = 4;
constexpr uint32_t kMaker = 1;  // the node whose process makes the stream
const Caller kStream{1000, 1000, 77};

FileSystemOptions Coherent(bool dir_leases = true) {
  FileSystemOptions o = Cluster::Defaults();
  o.dir_leases = dir_leases;        // off: each name reserved by its own lookup
  o.attr_cache_ns = 5'000'000'000;  // owners keep callbacks: reservations are given
  o.deferred_create_ms = 0;         // entries go when the test sends them (SendDeferredCreates)
  return o;
}

NodeId Owner(Cluster& c, const std::string& path) { return c.members[0].router->Resolve(path).MetaNode(path); }

// Requests node `from` made to other nodes.
uint64_t Requests(Cluster& c, uint32_t from) {
  uint64_t n = 0;
  for (uint32_t to = 0; to < c.members.size(); ++to) {
    if (to != from) n += c.stats(from).to(to).meta_requests.load() + c.stats(from).to(to).data_requests.load();
  }
  return n;
}

// As the kernel does for open(O_CREAT) of a new name: a lookup (which finds nothing), then the
// create; then `data` written and the file closed. Returns the inode.
uint64_t MakeFile(Cluster& c, uint32_t node, uint64_t dir, const std::string& name, const std::string& data,
                  const Caller& who = kStream, int flags = O_WRONLY | O_EXCL) {
  auto looked = c.fs(node).Lookup(dir, name, who.pid);
  REQUIRE_FALSE(looked.has_value());
  REQUIRE(looked.error().code() == ENOENT);
  auto cr = c.fs(node).Create(dir, name, 0644, flags, who);
  REQUIRE(cr.has_value());
  if (!data.empty()) REQUIRE(c.fs(node).Write(cr->second, 0, {data.data(), data.size()}).has_value());
  REQUIRE(c.fs(node).Release(cr->second).ok());
  return cr->first.ino;
}

// A name in `dir` whose entry another node than kMaker (and than `not_owner`) holds.
std::string RemoteName(Cluster& c, const std::string& dir, const std::string& stem, NodeId not_owner = kMaker) {
  for (int i = 0;; ++i) {
    std::string name = stem + std::to_string(i);
    NodeId o = Owner(c, dir + "/" + name);
    if (o != kMaker && o != not_owner) return name;
  }
}

struct Stream {
  explicit Stream(Cluster& cluster, const std::string& dir_name = "d") : c(cluster), dir_path("/" + dir_name) {
    auto d = c.fs(kMaker).Mkdir(kRootFileId, dir_name, 0755, kStream);
    REQUIRE(d.has_value());
    dir = d->ino;
    MakeFile(c, kMaker, dir, "first", "x");  // the first file of a stream is made the usual way
    REQUIRE(c.fs(kMaker).DeferredCounters().made == 0);
  }
  // The directory's inode on node `n` (looked up there).
  uint64_t On(uint32_t n) { return c.Walk(n, dir_path); }
  Cluster& c;
  std::string dir_path;
  uint64_t dir = 0;
};

TEST_CASE("small file streams: a name looked up by a stream is reserved, and its create asks nobody", "[core]") {
  Cluster c(kNodes, Coherent(GENERATE(true, false)));
  Stream s(c);
  std::string name = RemoteName(c, s.dir_path, "f");
  uint64_t before = Requests(c, kMaker);
  auto looked = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);
  REQUIRE(looked.error().code() == ENOENT);
  CHECK(Requests(c, kMaker) - before == 1);                    // the lookup
  auto again = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);  // answered here: the name is this node's
  CHECK(again.error().code() == ENOENT);
  CHECK(Requests(c, kMaker) - before == 1);
  auto cr = c.fs(kMaker).Create(s.dir, name, 0644, O_WRONLY | O_EXCL, kStream);
  REQUIRE(cr.has_value());
  CHECK(Requests(c, kMaker) - before == 1);  // made here
  CHECK(FileSystem::WritesThrough(cr->second));
  CHECK(c.fs(kMaker).DeferredCounters().made == 1);
  // Its owner does not have it yet, but anyone who asks does: another node, the owner itself.
  NodeId owner = Owner(c, s.dir_path + "/" + name);
  CHECK(c.members[owner].service->GetMeta(s.dir_path + "/" + name).error().code() == ENOENT);
  NodeId other = owner == 2 ? 3 : 2;
  auto seen = c.fs(other).Lookup(s.On(other), name);
  REQUIRE(seen.has_value());
  CHECK(seen->md.file_id == cr->first.md.file_id);
  CHECK(c.fs(kMaker).DeferredCounters().handed_over == 1);
  CHECK(c.members[owner].service->GetMeta(s.dir_path + "/" + name).has_value());
  REQUIRE(c.fs(kMaker).Release(cr->second).ok());
}

TEST_CASE("small file streams: a small file's entry, chunk and size go to its owner in one request", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  int made = 0;
  std::set<NodeId> leased;  // owners asked for the lease
  for (int i = 0; i < 20; ++i) {
    std::string name = "s" + std::to_string(i);
    NodeId owner = Owner(c, s.dir_path + "/" + name);
    bool remote = owner != kMaker;
    uint64_t before = Requests(c, kMaker);
    MakeFile(c, kMaker, s.dir, name, std::string(3901, 'a' + i % 26));
    // The write carrying the entry, and the first lookup of a name of each owner, which asks it
    // for the directory's lease (dir_leases.h): nothing for the other lookups, the create or the close.
    bool first = remote && leased.insert(owner).second;
    CHECK(Requests(c, kMaker) - before == static_cast<uint64_t>((remote ? 1 : 0) + (first ? 1 : 0)));
    made += remote;
  }
  CHECK(c.fs(kMaker).LeaseCounters().absent == static_cast<uint64_t>(made));
  REQUIRE(made > 5);
  CHECK(c.fs(kMaker).DeferredCounters().with_write == static_cast<uint64_t>(made));
  CHECK(c.fs(kMaker).DeferredWaiting() == 0);  // nothing left to send
  for (int i = 0; i < 20; ++i) {
    std::string name = "s" + std::to_string(i);
    auto back = c.Read(3, s.dir_path, name);
    REQUIRE(back.has_value());
    CHECK(*back == std::string(3901, 'a' + i % 26));
  }
}

TEST_CASE("small file streams: entries made without data go in one batch per owner", "[core]") {
  Cluster c(kNodes, Coherent(GENERATE(true, false)));
  Stream s(c);
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) {
    names.push_back("e" + std::to_string(i));
    MakeFile(c, kMaker, s.dir, names.back(), "");
  }
  uint64_t waiting = c.fs(kMaker).DeferredWaiting();
  CHECK(waiting > 10);
  uint64_t before = Requests(c, kMaker);
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  CHECK(Requests(c, kMaker) - before <= kNodes - 1);  // one per owner
  CHECK(c.fs(kMaker).DeferredWaiting() == 0);
  for (const std::string& name : names) {
    std::string path = s.dir_path + "/" + name;
    auto md = c.members[Owner(c, path)].service->GetMeta(path);
    REQUIRE(md.has_value());
    CHECK(md->size == 0);
  }
  CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
}

TEST_CASE("small file streams: O_EXCL holds across nodes, on a reserved name and on one made", "[core]") {
  Cluster c(kNodes, Coherent(GENERATE(true, false)));
  Stream s(c);
  const uint32_t other = 2;
  // Reserved by the stream, made by another node first: the stream's create fails.
  std::string reserved = RemoteName(c, s.dir_path, "r", other);
  REQUIRE(c.fs(kMaker).Lookup(s.dir, reserved, kStream.pid).error().code() == ENOENT);
  auto theirs = c.fs(other).Create(s.On(other), reserved, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE(theirs.has_value());
  REQUIRE(c.fs(other).Release(theirs->second).ok());
  auto mine = c.fs(kMaker).Create(s.dir, reserved, 0644, O_WRONLY | O_EXCL, kStream);
  REQUIRE_FALSE(mine.has_value());
  CHECK(mine.error().code() == EEXIST);
  // Made by the stream first: the other node's exclusive create fails, a plain one opens it.
  std::string made = RemoteName(c, s.dir_path, "m", other);
  uint64_t ino = MakeFile(c, kMaker, s.dir, made, "mine");
  auto excl = c.fs(other).Create(s.On(other), made, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE_FALSE(excl.has_value());
  CHECK(excl.error().code() == EEXIST);
  auto plain = c.fs(3).Create(s.On(3), made, 0644, O_RDWR, testing::kUser);
  REQUIRE(plain.has_value());
  CHECK(plain->first.ino == ino);
  REQUIRE(c.fs(3).Release(plain->second).ok());
  CHECK(c.Read(3, s.dir_path, made).value() == "mine");
}

TEST_CASE("small file streams: a name reserved by its lookup and then linked or renamed to is taken", "[core]") {
  // As the kernel does for link(2) and rename(2) by a stream's process: the lookup of the new
  // name reserves it for this node, then the link or rename makes it at its owner. The right must
  // go with that make: else a later lookup finds the name absent here, and a create makes a
  // second file on it that its owner refuses (lost), while this node's kernel keeps it.
  Cluster c(kNodes, Coherent(GENERATE(true, false)));
  Stream s(c);
  uint64_t ino = MakeFile(c, kMaker, s.dir, RemoteName(c, s.dir_path, "src"), "data");
  std::string linked = RemoteName(c, s.dir_path, "ln");
  REQUIRE(c.fs(kMaker).Lookup(s.dir, linked, kStream.pid).error().code() == ENOENT);
  REQUIRE(c.fs(kMaker).Link(ino, s.dir, linked).has_value());
  std::string plain = RemoteName(c, s.dir_path, "p");
  auto cr = c.fs(kMaker).Create(s.dir, plain, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE(cr.has_value());
  REQUIRE(c.fs(kMaker).Release(cr->second).ok());
  std::string moved = RemoteName(c, s.dir_path, "mv");
  REQUIRE(c.fs(kMaker).Lookup(s.dir, moved, kStream.pid).error().code() == ENOENT);
  REQUIRE(c.fs(kMaker).Rename(s.dir, plain, s.dir, moved, 0).ok());
  for (auto [name, want] : {std::pair{linked, ino}, std::pair{moved, cr->first.ino}}) {
    auto seen = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);
    REQUIRE(seen.has_value());
    CHECK(seen->ino == want);
    auto excl = c.fs(kMaker).Create(s.dir, name, 0644, O_WRONLY | O_EXCL, kStream);
    REQUIRE_FALSE(excl.has_value());
    CHECK(excl.error().code() == EEXIST);
    CHECK(c.fs(2).Lookup(s.On(2), name, 0).value().ino == want);
  }
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
  CHECK(c.Read(3, s.dir_path, linked).value() == "data");
}

TEST_CASE("small file streams: listings and rmdir see entries made elsewhere, and a removed one stays removed",
          "[core]") {
  Cluster c(kNodes, Coherent(GENERATE(true, false)));
  Stream s(c, "ls");
  std::set<std::string> want = {"first"};
  for (int i = 0; i < 12; ++i) {
    want.insert("l" + std::to_string(i));
    MakeFile(c, kMaker, s.dir, "l" + std::to_string(i), i % 2 ? "" : "data");
  }
  REQUIRE(c.fs(kMaker).DeferredWaiting() > 0);
  uint64_t dir2 = c.Walk(2, "/ls");
  CHECK(c.fs(2).Rmdir(kRootFileId, "ls").code() == ENOTEMPTY);
  auto h = c.fs(2).OpenDir(dir2);
  REQUIRE(h.has_value());
  std::set<std::string> listed;
  for (uint64_t i = 2;; ++i) {
    auto e = c.fs(2).DirEntryAt(*h, i);
    REQUIRE(e.has_value());
    if (!e->has_value()) break;
    listed.insert((*e)->name);
  }
  c.fs(2).ReleaseDir(*h);
  CHECK(listed == want);
  // Made on the stream's node, removed on another before the batch: the batch brings nothing
  // back.
  std::string gone = RemoteName(c, s.dir_path, "g", 2);
  MakeFile(c, kMaker, s.dir, gone, "");
  REQUIRE(c.fs(2).Unlink(dir2, gone).ok());
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  CHECK(c.fs(3).Lookup(c.Walk(3, "/ls"), gone).error().code() == ENOENT);
  CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
}

TEST_CASE("small file streams: rights unused for an interval are given up at their owners", "[core]") {
  FileSystemOptions o = Coherent();
  o.dir_leases = false;  // each name reserved by its own lookup
  Cluster c(kNodes, o);
  Stream s(c);
  std::string name = RemoteName(c, s.dir_path, "u");
  NodeId owner = Owner(c, s.dir_path + "/" + name);
  REQUIRE(c.fs(kMaker).Lookup(s.dir, name, kStream.pid).error().code() == ENOENT);  // a stat, say
  CHECK(c.members[owner].coherence->names().counters().held == 1);
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  CHECK(c.members[owner].coherence->names().counters().held == 0);
  CHECK(c.fs(kMaker).DeferredCounters().released == 1);
  // The name is the owner's again: another node makes it without asking the stream's node.
  uint64_t handed = c.fs(kMaker).DeferredCounters().handed_over;
  auto cr = c.fs(2).Create(s.On(2), name, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE(cr.has_value());
  REQUIRE(c.fs(2).Release(cr->second).ok());
  CHECK(c.fs(kMaker).DeferredCounters().handed_over == handed);
}

TEST_CASE("small file streams: a file turned large ends the stream's cheap path", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  auto cr = c.fs(kMaker).Create(s.dir, "big", 0644, O_WRONLY, kStream);
  REQUIRE(cr.has_value());
  CHECK(FileSystem::WritesThrough(cr->second));
  std::string data(kChunk + 10, 'b');  // past its first chunk
  REQUIRE(c.fs(kMaker).Write(cr->second, 0, {data.data(), data.size()}).has_value());
  REQUIRE(c.fs(kMaker).Release(cr->second).ok());
  CHECK(c.Read(2, s.dir_path, "big").value() == data);  // written through, published without a flush
  auto next = c.fs(kMaker).Create(s.dir, "after", 0644, O_WRONLY, kStream);
  REQUIRE(next.has_value());
  CHECK_FALSE(FileSystem::WritesThrough(next->second));
  REQUIRE(c.fs(kMaker).Release(next->second).ok());
}

TEST_CASE("small file streams: off, every create asks its name's node and every close flushes", "[core]") {
  FileSystemOptions o = Coherent();
  o.small_file_streams = false;
  Cluster c(kNodes, o);
  Stream s(c);
  for (int i = 0; i < 10; ++i) {
    std::string name = RemoteName(c, s.dir_path, "o" + std::to_string(i) + "_");
    uint64_t before = Requests(c, kMaker);
    auto looked = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);
    REQUIRE(looked.error().code() == ENOENT);
    auto cr = c.fs(kMaker).Create(s.dir, name, 0644, O_WRONLY | O_EXCL, kStream);
    REQUIRE(cr.has_value());
    CHECK_FALSE(FileSystem::WritesThrough(cr->second));
    CHECK(Requests(c, kMaker) - before == 2);  // the lookup and the create
    REQUIRE(c.fs(kMaker).Release(cr->second).ok());
  }
  CHECK(c.fs(kMaker).DeferredCounters().granted == 0);
  CHECK(c.fs(kMaker).DeferredCounters().made == 0);
}

// A chunk store whose writes wait, while armed, until the test lets them go.
class GatedChunkStore final : public testing::ForwardingChunkStore {
 public:
  using ForwardingChunkStore::ForwardingChunkStore;
  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    {
      std::unique_lock lock(mu);
      if (armed) {
        waiting++;
        cv.notify_all();
        cv.wait(lock, [&] { return !armed; });
      }
    }
    return ForwardingChunkStore::Write(file_id, chunk_size, index, offset, data);
  }
  std::mutex mu;
  std::condition_variable cv;
  bool armed = false;
  int waiting = 0;
};

TEST_CASE("small file streams: an entry asked for while its first write is on its way is stored once", "[core]") {
  const bool leases = GENERATE(true, false);
  for (bool removed : {false, true}) {
    INFO("removed by another node meanwhile: " << removed);
    std::vector<GatedChunkStore*> gates(kNodes);
    Cluster c(kNodes, Coherent(leases), [&](uint32_t n) {
      auto g = std::make_unique<GatedChunkStore>(NewMemoryChunkStore());
      gates[n] = g.get();
      return g;
    });
    Stream s(c);
    std::string name = RemoteName(c, s.dir_path, "q", 2);
    std::string path = s.dir_path + "/" + name;
    GatedChunkStore& gate = *gates[Owner(c, path)];
    REQUIRE(c.fs(kMaker).Lookup(s.dir, name, kStream.pid).error().code() == ENOENT);
    auto cr = c.fs(kMaker).Create(s.dir, name, 0644, O_WRONLY, kStream);
    REQUIRE(cr.has_value());
    {
      std::lock_guard lock(gate.mu);
      gate.armed = true;
    }
    std::string data(100, 'w');
    std::thread writer([&] { CHECK(c.fs(kMaker).Write(cr->second, 0, {data.data(), data.size()}).has_value()); });
    {
      std::unique_lock lock(gate.mu);
      REQUIRE(gate.cv.wait_for(lock, std::chrono::seconds(5), [&] { return gate.waiting == 1; }));
    }
    // The write carrying the entry waits at the owner; another node asks for the name.
    auto seen = c.fs(2).Lookup(s.On(2), name);
    REQUIRE(seen.has_value());
    CHECK(seen->md.size == 100);  // as the request on its way will leave it
    if (removed) REQUIRE(c.fs(2).Unlink(s.On(2), name).ok());
    {
      std::lock_guard lock(gate.mu);
      gate.armed = false;
    }
    gate.cv.notify_all();
    writer.join();
    REQUIRE(c.fs(kMaker).Release(cr->second).ok());
    REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
    auto after = c.members[Owner(c, path)].service->GetMeta(path);
    if (removed) {
      CHECK(after.error().code() == ENOENT);  // the late request did not bring it back
    } else {
      REQUIRE(after.has_value());
      CHECK(after->file_id == cr->first.md.file_id);
      CHECK(c.Read(3, s.dir_path, name).value() == data);
    }
    CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
  }
}

namespace leases {

// A stream on kMaker that made files of names every other node owns, so that it holds the
// directory's lease from each of them.
void Lease(Cluster& c, Stream& s) {
  for (int i = 0; i < 12; ++i) MakeFile(c, kMaker, s.dir, "lease" + std::to_string(i), "");
  REQUIRE(c.fs(kMaker).LeaseCounters().held == kNodes - 1);
}

TEST_CASE("an owner that starts again ends the leases and the reservations it gave", "[core]") {
  // It forgot them: a file made on one afterwards would be seen by nobody else until sent.
  const bool leases = GENERATE(true, false);
  Cluster c(kNodes, Coherent(leases));
  Stream s(c);
  if (leases) Lease(c, s);
  std::string name = RemoteName(c, s.dir_path, "r");
  const NodeId owner = Owner(c, s.dir_path + "/" + name);
  REQUIRE(c.fs(kMaker).Lookup(s.dir, name, kStream.pid).error().code() == ENOENT);  // reserved, or leased
  c.members[owner].coherence->DropEverywhere();                                     // as it does when it starts again
  if (leases) CHECK(c.fs(kMaker).LeaseCounters().held == kNodes - 2);
  const uint64_t made = c.fs(kMaker).DeferredCounters().made;
  auto cr = c.fs(kMaker).Create(s.dir, name, 0644, O_WRONLY | O_EXCL, kStream);
  REQUIRE(cr.has_value());
  REQUIRE(c.fs(kMaker).Release(cr->second).ok());
  CHECK(c.fs(kMaker).DeferredCounters().made == made);  // made at its owner
  CHECK(c.fs(3).Lookup(s.On(3), name).has_value());
}

TEST_CASE("directory leases: new names of a stream's directory cost no request, what is made is seen everywhere",
          "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  Lease(c, s);
  uint64_t before = Requests(c, kMaker);
  for (int i = 0; i < 30; ++i) MakeFile(c, kMaker, s.dir, "f" + std::to_string(i), "");
  CHECK(Requests(c, kMaker) - before == 0);  // lookups, creates and closes all answered here
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  CHECK(Requests(c, kMaker) - before == kNodes - 1);  // one batch per owner
  for (int i = 0; i < 30; ++i) CHECK(c.fs(3).Lookup(s.On(3), "f" + std::to_string(i)).has_value());
  CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
}

TEST_CASE("directory leases: another node's access asks for the lease back first, and O_EXCL holds", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  Lease(c, s);
  const uint32_t other = 2;
  // Made under the lease, not yet stored at its owner: another node's exclusive create fails.
  std::string made = RemoteName(c, s.dir_path, "m", other);
  uint64_t ino = MakeFile(c, kMaker, s.dir, made, "");
  auto excl = c.fs(other).Create(s.On(other), made, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE_FALSE(excl.has_value());
  CHECK(excl.error().code() == EEXIST);
  NodeId owner = Owner(c, s.dir_path + "/" + made);
  CHECK(c.members[owner].coherence->names().counters().lease_recalls == 1);
  CHECK(c.fs(kMaker).LeaseCounters().recalled == 1);
  CHECK(c.fs(3).Lookup(s.On(3), made)->ino != 0);
  // A name the other node makes there now is no longer taken as absent by the stream's node.
  auto theirs = c.fs(other).Create(s.On(other), made + "x", 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE(theirs.has_value());
  REQUIRE(c.fs(other).Release(theirs->second).ok());
  for (const std::string& name : {made, made + "x"}) {
    auto seen = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);
    REQUIRE(seen.has_value());
    if (name == made) CHECK(seen->ino == ino);
  }
  CHECK(c.fs(kMaker).DeferredCounters().lost == 0);
}

TEST_CASE("directory leases: names the holder makes other ways are known to its lease", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  Lease(c, s);
  // Made by another process on the stream's node (at its owner, not under the lease), then
  // renamed and linked into the directory: the stream's lookups find each.
  std::string plain = RemoteName(c, s.dir_path, "p");
  auto cr = c.fs(kMaker).Create(s.dir, plain, 0644, O_WRONLY | O_EXCL, testing::kUser);
  REQUIRE(cr.has_value());
  REQUIRE(c.fs(kMaker).Release(cr->second).ok());
  std::string moved = RemoteName(c, s.dir_path, "mv");
  REQUIRE(c.fs(kMaker).Rename(s.dir, plain, s.dir, moved, 0).ok());
  std::string linked = RemoteName(c, s.dir_path, "ln");
  REQUIRE(c.fs(kMaker).Link(cr->first.ino, s.dir, linked).has_value());
  for (const std::string& name : {moved, linked}) {
    auto seen = c.fs(kMaker).Lookup(s.dir, name, kStream.pid);
    REQUIRE(seen.has_value());
    CHECK(seen->ino == cr->first.ino);
  }
  CHECK(c.fs(kMaker).Lookup(s.dir, plain, kStream.pid).error().code() == ENOENT);
  CHECK(c.fs(kMaker).LeaseCounters().recalled == 0);  // none of it asked for a lease back
}

TEST_CASE("directory leases: the holder's own reads of names absent at their owner find what it made", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c);
  Lease(c, s);
  std::string name = RemoteName(c, s.dir_path, "own");
  uint64_t ino = MakeFile(c, kMaker, s.dir, name, "");
  NodeId owner = Owner(c, s.dir_path + "/" + name);
  // Through the holder's own view at the owner, as its getattr of the path would go.
  CoherentView view(c.members[owner].service.get(), c.members[owner].coherence.get(), kMaker);
  auto md = view.GetMeta(s.dir_path + "/" + name);
  REQUIRE(md.has_value());
  CHECK(c.fs(kMaker).DeferredCounters().handed_over == 1);
  CHECK(c.fs(kMaker).LeaseCounters().recalled == 0);  // the lease stands
  CHECK(c.fs(3).Lookup(s.On(3), name)->ino == ino);
}

TEST_CASE("directory leases: a directory with many names at an owner is not leased", "[core]") {
  Cluster c(kNodes, Coherent());
  Stream s(c, "big");
  for (uint32_t i = 0; i < 6 * NameReservations::kMaxLeaseNames; ++i) {  // about 1.5x the bound per node
    auto cr = c.fs(2).Create(s.On(2), "n" + std::to_string(i), 0644, O_WRONLY, testing::kUser);
    REQUIRE(cr.has_value());
    REQUIRE(c.fs(2).Release(cr->second).ok());
  }
  for (int i = 0; i < 12; ++i) MakeFile(c, kMaker, s.dir, "s" + std::to_string(i), "");
  CHECK(c.fs(kMaker).LeaseCounters().held == 0);
  CHECK(c.fs(kMaker).LeaseCounters().refused >= 1);
  REQUIRE(c.fs(kMaker).SendDeferredCreates().ok());
  for (int i = 0; i < 12; ++i) CHECK(c.fs(3).Lookup(s.On(3), "s" + std::to_string(i)).has_value());
}

}  // namespace leases
}  // namespace
}  // namespace bb::fs

namespace bb::fs {
namespace {

// A node's store that refuses entries for space a given number of times (full to its last byte).
class RefusingEntries : public testing::ForwardingNodeService {
 public:
  using ForwardingNodeService::ForwardingNodeService;
  std::atomic<int> refuse{0};
  std::atomic<int> refused{0};
  Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made,
                                       const std::vector<NameGrant>& released) override {
    if (refuse.load() > 0 && !made.empty()) {
      ++refused;
      --refuse;
      return std::vector<int>(made.size(), ENOSPC);
    }
    return ForwardingNodeService::MakeEntries(made, released);
  }
};

TEST_CASE("small file streams: an entry handed over to an owner whose store is full for now is stored, not lost",
          "[core]") {
  std::vector<RefusingEntries*> stores(kNodes);
  Cluster c(kNodes, Coherent(GENERATE(true, false)), nullptr,
            [&](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
              auto r = std::make_unique<RefusingEntries>(std::move(s));
              stores[node] = r.get();
              return r;
            });
  Stream s(c, "h");
  std::string name = RemoteName(c, s.dir_path, "h", 2);
  MakeFile(c, kMaker, s.dir, name, "");  // empty: its entry waits on the stream's node
  REQUIRE(c.fs(kMaker).DeferredWaiting() > 0);
  stores[Owner(c, s.dir_path + "/" + name)]->refuse = 3;
  // Node 2 looks: the owner asks the stream's node for the entry, which gives it up, and the
  // owner's store refuses it three times before it takes it.
  auto seen = c.fs(2).Lookup(s.On(2), name);
  REQUIRE(seen.has_value());
  CHECK(stores[Owner(c, s.dir_path + "/" + name)]->refuse == 0);
  CHECK(c.fs(3).Lookup(s.On(3), name).has_value());
}

TEST_CASE("small file streams: a directory handed over to an owner whose store stays full ends in time", "[core]") {
  // Ten files made in a leased directory, the entries other nodes hold asked back by the lease's
  // end, and owner stores that refuse them all: at each owner the first is tried for 2 s, the
  // others once each (without that, a hand-over of many entries would take 2 s for each).
  std::vector<RefusingEntries*> stores(kNodes);
  Cluster c(kNodes, Coherent(true), nullptr,
            [&](uint32_t node, std::unique_ptr<NodeService> s) -> std::unique_ptr<NodeService> {
              auto r = std::make_unique<RefusingEntries>(std::move(s));
              stores[node] = r.get();
              return r;
            });
  Stream s(c, "full");
  for (int i = 0; i < 10; ++i) MakeFile(c, kMaker, s.dir, "e" + std::to_string(i), "");
  REQUIRE(c.fs(kMaker).DeferredWaiting() >= 5);  // those whose names other nodes hold
  for (auto* store : stores) store->refuse = 1000;
  auto h = c.fs(2).OpenDir(s.On(2));  // its listing ends the lease: every entry is handed over
  REQUIRE(h.has_value());
  for (uint64_t i = 2;; ++i) {
    auto e = c.fs(2).DirEntryAt(*h, i);
    if (!e || !e->has_value()) break;
  }
  c.fs(2).ReleaseDir(*h);
  int tries = 0;
  for (auto* store : stores) tries += store->refused.load();
  CHECK(tries >= 5);
  CHECK(tries <= 3 * 40 + 10);  // each other node's store tries its first for 2 s
}

}  // namespace
}  // namespace bb::fs
