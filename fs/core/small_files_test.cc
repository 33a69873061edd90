// A small file on one node (ModeInfo::first_chunk_with_entry): its size goes with its chunk, and
// its chunk goes with its entry, on a cluster of in-process nodes (test_cluster.h), counted by
// what each node asked of the others.
#include <fcntl.h>

#include <catch2/catch.hpp>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

// Requests node `from` made to all other nodes.
uint64_t Requests(Cluster& c, uint32_t from) {
  uint64_t n = 0;
  for (uint32_t to = 0; to < c.members.size(); ++to) {
    if (to != from) n += c.stats(from).to(to).meta_requests.load() + c.stats(from).to(to).data_requests.load();
  }
  return n;
}

// The node that holds `path`'s entry (mode 3: hash of the path).
NodeId Owner(Cluster& c, const std::string& path) {
  return MetaNodeFor(LayoutOptions{}, NodeView{static_cast<uint32_t>(c.members.size()), 0}, path);
}

void CreateWriteClose(Cluster& c, const std::string& name, size_t bytes, int flags = O_WRONLY) {
  auto cr = c.fs(0).Create(kRootFileId, name, 0644, flags, kUser);
  REQUIRE(cr.has_value());
  std::string data(bytes, 'd');
  REQUIRE(c.fs(0).Write(cr->second, 0, {data.data(), data.size()}).has_value());
  REQUIRE(c.fs(0).Flush(cr->second).ok());
  REQUIRE(c.fs(0).Release(cr->second).ok());
}

TEST_CASE("a small file's data and size go to its entry's node in one request, behind the write or not", "[core]") {
  for (uint64_t behind : {uint64_t{64} << 20, uint64_t{0}}) {
    INFO("write_behind " << behind);
    FileSystemOptions o = Cluster::Defaults();
    o.write_behind_bytes = behind;
    Cluster c(4, o);
    int remote = 0;
    for (int i = 0; i < 40; ++i) {
      std::string name = "f" + std::to_string(i);
      NodeId owner = Owner(c, "/" + name);
      uint64_t before = Requests(c, 0);
      CreateWriteClose(c, name, 3901);
      // Create, then the chunk with the size: nothing at close. All local when node 0 holds it.
      CHECK(Requests(c, 0) - before == (owner == 0 ? 0 : 2));
      remote += owner != 0;
      // The chunk is where the entry is, and another node sees the whole file.
      auto e = c.fs(2).Lookup(kRootFileId, name);
      REQUIRE(e.has_value());
      CHECK(e->md.size == 3901);
      char byte;
      CHECK(c.members[owner].chunks->Read(e->md.file_id, kChunk, 0, 3900, {&byte, 1}).value() == 1);
      auto back = c.Read(3, "/", name);
      REQUIRE(back.has_value());
      CHECK(*back == std::string(3901, 'd'));
    }
    CHECK(remote > 20);
  }
}

TEST_CASE("a file cut by another node while open here grows from the cut, not from the size known before", "[core]") {
  // Node 2 opened a file of three chunks; node 1 truncates it to nothing; node 2 then writes one
  // byte inside the first chunk (its size may go with the chunk) or the second, with writes behind
  // and without, then fsyncs or closes. The file ends at that byte on every node, not at the three
  // chunks node 2 knew.
  for (LayoutMode mode : {LayoutMode::kCentralizedMeta, LayoutMode::kHashed, LayoutMode::kHybrid}) {
    for (uint64_t behind : {uint64_t{64} << 20, uint64_t{0}}) {
      for (uint64_t at : {uint64_t{52}, uint64_t{kChunk} + 52}) {
        INFO("mode " << static_cast<int>(mode) << ", write_behind " << behind << ", at " << at);
        FileSystemOptions o = Cluster::Coherent();  // node 2 is told of the cut
        o.write_behind_bytes = behind;
        Cluster c(4, o);
        REQUIRE(c.fs(0).CreateWorkspace("ws", WorkspaceSpec{{mode, 0.25}, kChunk}, kUser).ok());
        uint64_t ino = c.Write(0, "/ws", "f", std::string(3 * kChunk, 'o'));
        REQUIRE(c.fs(2).Lookup(c.Walk(2, "/ws"), "f").value().ino == ino);
        auto w = c.fs(2).Open(ino, O_RDWR, kUser);
        REQUIRE(w.has_value());
        SetAttrRequest cut;
        cut.size = 0;
        REQUIRE(c.fs(1).SetAttr(c.fs(1).Lookup(c.Walk(1, "/ws"), "f").value().ino, cut, nullptr).has_value());
        REQUIRE(c.fs(2).Write(*w, at, {"x", 1}).has_value());
        REQUIRE(c.fs(2).Fsync(*w).ok());
        std::string want = std::string(at, '\0') + "x";
        CHECK(c.Read(3, "/ws", "f").value() == want);
        REQUIRE(c.fs(2).Write(*w, 10, {"y", 1}).has_value());  // within the file: its size stays
        REQUIRE(c.fs(2).Release(*w).ok());
        want[10] = 'y';
        CHECK(c.Read(3, "/ws", "f").value() == want);
        CHECK(c.fs(2).GetAttr(ino).value().md.size == at + 1);
      }
    }
  }
}

TEST_CASE("a size the entry's node did not take is published at close", "[core]") {
  Cluster c(4);
  std::string name;
  for (int i = 0; name.empty(); ++i) {
    if (Owner(c, "/r" + std::to_string(i)) != 0) name = "r" + std::to_string(i);
  }
  auto cr = c.fs(0).Create(kRootFileId, name, 0644, O_WRONLY, kUser);
  REQUIRE(cr.has_value());
  // Linked from another node between create and write: the entry at the name node 0 knows is a
  // name now (the attributes moved to the link record), and its node refuses the size.
  auto there = c.fs(1).Lookup(kRootFileId, name);
  REQUIRE(there.has_value());
  REQUIRE(c.fs(1).Link(there->ino, kRootFileId, name + ".2").has_value());
  uint64_t before = Requests(c, 0);
  std::string data(3000, 'm');
  REQUIRE(c.fs(0).Write(cr->second, 0, {data.data(), data.size()}).has_value());
  REQUIRE(c.fs(0).Release(cr->second).ok());
  CHECK(Requests(c, 0) - before > 1);  // the size went on its own
  for (const std::string& n : {name, name + ".2"}) {
    auto e = c.fs(2).Lookup(kRootFileId, n);
    REQUIRE(e.has_value());
    CHECK(e->md.size == 3000);
    CHECK(*c.Read(3, "/", n) == data);
  }
}

TEST_CASE("only the first write since the size was published carries it, the rest publish at close", "[core]") {
  Cluster c(4);
  std::string name;
  for (int i = 0; name.empty(); ++i) {
    if (Owner(c, "/w" + std::to_string(i)) != 0) name = "w" + std::to_string(i);
  }
  auto cr = c.fs(0).Create(kRootFileId, name, 0644, O_WRONLY, kUser);
  REQUIRE(cr.has_value());
  OpenFile* f = cr->second;
  std::string a(100, 'a'), b(200, 'b');
  REQUIRE(c.fs(0).Write(f, 0, {a.data(), a.size()}).has_value());
  REQUIRE(c.fs(0).Write(f, 100, {b.data(), b.size()}).has_value());
  REQUIRE(c.fs(0).Flush(f).ok());
  CHECK(c.fs(2).Lookup(kRootFileId, name)->md.size == 300);
  // Past the first chunk: other nodes, the size at close.
  std::string far(kChunk, 'z');
  REQUIRE(c.fs(0).Write(f, 3 * kChunk, {far.data(), far.size()}).has_value());
  REQUIRE(c.fs(0).Release(f).ok());
  CHECK(c.fs(2).Lookup(kRootFileId, name)->md.size == 4 * kChunk);
  auto back = c.Read(3, "/", name);
  REQUIRE(back.has_value());
  CHECK(back->substr(0, 300) == a + b);
  CHECK(back->substr(3 * kChunk) == far);
}

TEST_CASE("a small file's chunk goes with its entry at unlink, unless the file is open here or larger", "[core]") {
  FileSystemOptions o = Cluster::Defaults();
  o.attr_cache_ns = 60'000'000'000;  // what a node knows fresh tells it the file's id and size
  Cluster c(4, o);
  auto held = [&](NodeId node, uint64_t id) {
    char byte;
    return c.members[node].chunks->Read(id, kChunk, 0, 0, {&byte, 1}).value() == 1;
  };
  int checked = 0;
  for (int i = 0; checked < 10 && i < 100; ++i) {
    std::string name = "u" + std::to_string(i);
    NodeId owner = Owner(c, "/" + name);
    if (owner == 0) continue;
    ++checked;
    CreateWriteClose(c, name, 3901);
    uint64_t id = c.fs(0).Lookup(kRootFileId, name)->md.file_id;
    REQUIRE(held(owner, id));
    uint64_t before = Requests(c, 0);
    REQUIRE(c.fs(0).Unlink(kRootFileId, name).ok());
    CHECK(Requests(c, 0) - before == 1);  // entry and chunk in one request
    CHECK_FALSE(held(owner, id));         // gone with it, nothing left behind
    CHECK(c.fs(0).ChunkRemovalCounters().noted == 0);
  }
  CHECK(checked == 10);
  // Open here: the data stays until the last close.
  std::string name;
  for (int i = 0; name.empty(); ++i) {
    if (Owner(c, "/o" + std::to_string(i)) != 0) name = "o" + std::to_string(i);
  }
  auto cr = c.fs(0).Create(kRootFileId, name, 0644, O_RDWR, kUser);
  REQUIRE(cr.has_value());
  std::string data(100, 'o');
  REQUIRE(c.fs(0).Write(cr->second, 0, {data.data(), data.size()}).has_value());
  REQUIRE(c.fs(0).Unlink(kRootFileId, name).ok());
  std::string back(100, '\0');
  CHECK(c.fs(0).Read(cr->second, 0, {back.data(), back.size()}).value() == 100);
  CHECK(back == data);
  REQUIRE(c.fs(0).Release(cr->second).ok());
  // Larger than a chunk: removed the usual way, on every node that holds a part.
  CreateWriteClose(c, "big", 3 * kChunk);
  uint64_t big = c.fs(0).Lookup(kRootFileId, "big")->md.file_id;
  REQUIRE(c.fs(0).Unlink(kRootFileId, "big").ok());
  for (NodeId n = 0; n < 4; ++n) {
    for (uint64_t index = 0; index < 3; ++index) {
      char byte;
      CHECK(c.members[n].chunks->Read(big, kChunk, index, 0, {&byte, 1}).value() == 0);
    }
  }
}

}  // namespace
}  // namespace bb::fs
