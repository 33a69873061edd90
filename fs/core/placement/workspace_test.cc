// Workspaces and the four layout modes on a cluster of in-process nodes (test_cluster.h); the
// statistics say where work actually went.
#include "fs/core/placement/workspace.h"

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <set>

#include "fs/core/file_system.h"
#include "fs/core/test_cluster.h"

namespace bb::fs {
namespace {

using testing::Cluster;
using testing::kChunk;
using testing::kUser;

WorkspaceSpec Spec(LayoutMode mode, double ratio = 0.25) { return WorkspaceSpec{{mode, ratio}, kChunk}; }

TEST_CASE("workspace records round-trip and bad ones are rejected", "[workspace]") {
  WorkspaceSpec s{{LayoutMode::kCentralizedMeta, 0.5}, 1 << 20};
  auto back = DecodeWorkspace(EncodeWorkspace(s));
  REQUIRE(back.has_value());
  CHECK(*back == s);
  std::string bytes = EncodeWorkspace(s);
  CHECK(DecodeWorkspace(bytes.substr(1)).error().code() == EIO);
  std::string bad_version = bytes;
  bad_version[0] = 9;
  CHECK_FALSE(DecodeWorkspace(bad_version).has_value());
  std::string bad_mode = bytes;
  bad_mode[1] = 5;
  CHECK_FALSE(DecodeWorkspace(bad_mode).has_value());
  std::string bad_chunk = EncodeWorkspace({{LayoutMode::kHashed}, 5000});
  CHECK_FALSE(DecodeWorkspace(bad_chunk).has_value());
  for (const char* name : {"job-1", "a", "x.y_z"}) CHECK(ValidateWorkspaceName(name).ok());
  for (const char* name : {"", ".", "..", "a/b", "a b", "ü"}) CHECK(ValidateWorkspaceName(name).code() == EINVAL);
}

TEST_CASE("the router places each workspace by its own mode and the rest by the instance's", "[workspace]") {
  WorkspaceRouter r(WorkspaceSpec{{}, kChunk}, NodeView{4, 2});
  r.Set("local", Spec(LayoutMode::kNodeLocal));
  r.Set("central", Spec(LayoutMode::kCentralizedMeta, 0.25));
  r.Set("hybrid", Spec(LayoutMode::kHybrid));
  CHECK(r.Resolve("/").replicated);
  CHECK(r.Resolve("/local").replicated);
  CHECK_FALSE(r.Resolve("/local/x").replicated);
  CHECK_FALSE(r.Resolve("/other").replicated);
  CHECK(r.Resolve("/local/a/b").domain == "local");
  CHECK(r.Resolve("/local").domain == "local");
  CHECK(r.Resolve("/other/a").domain.empty());
  std::set<NodeId> hashed;
  for (int i = 0; i < 200; ++i) {
    std::string name = "/f" + std::to_string(i);
    CHECK(r.Resolve("/local" + name).MetaNode("/local" + name) == 2);
    CHECK(r.Resolve("/central" + name).MetaNode("/central" + name) == 0);
    hashed.insert(r.Resolve("/other" + name).MetaNode("/other" + name));
    CHECK(r.Resolve("/local" + name).Data(77, kNoNode).For(i) == 2);
    CHECK(r.Resolve("/hybrid" + name).Data(77, 3).For(i) == 3);
  }
  CHECK(hashed.size() == 4);
  CHECK(r.Resolve("/local").DirNodes() == std::vector<NodeId>{2});
  CHECK(r.Resolve("/central/d").DirNodes() == std::vector<NodeId>{0});
  CHECK(r.Resolve("/").DirNodes().size() == 4);
  CHECK(r.Resolve("/hybrid/f").NewDataLocation() == 2);
  CHECK(r.Resolve("/local/f").NewDataLocation() == kNoNode);
  CHECK(r.Resolve("/local/f").node_private());
  CHECK(r.Resolve("/local").node_private());  // the workspace's root entry too
  CHECK_FALSE(r.Resolve("/hybrid").node_private());
  CHECK_FALSE(r.Resolve("/").node_private());
  CHECK_FALSE(r.Resolve("/hybrid/f").node_private());
  r.Erase("local");
  CHECK_FALSE(r.Resolve("/local").replicated);
  CHECK(r.Resolve("/local").DirNodes().size() == 4);
}

TEST_CASE("mode 1: a file is seen only on the node that wrote it, data stays there", "[workspace]") {
  Cluster c(4);
  REQUIRE(c.fs(0).CreateWorkspace("ckpt", Spec(LayoutMode::kNodeLocal), kUser).ok());
  c.Write(1, "/ckpt", "rank1", "one");
  CHECK(c.Read(1, "/ckpt", "rank1").value() == "one");
  CHECK(c.Read(2, "/ckpt", "rank1").error().code() == ENOENT);
  // Each node has its own namespace in the workspace: the same name again elsewhere.
  c.Write(2, "/ckpt", "rank1", "two");
  CHECK(c.Read(1, "/ckpt", "rank1").value() == "one");
  CHECK(c.Read(2, "/ckpt", "rank1").value() == "two");
  for (uint32_t other : {0u, 2u, 3u}) {
    CHECK(c.MetaTo(1, other) == 0);
    CHECK(c.WrittenTo(1, other) == 0);
  }
  CHECK(c.WrittenTo(1, 1) == 3);
  CHECK(c.fs(1).Lookup(c.Walk(1, "/ckpt"), "rank1")->node_private);
}

TEST_CASE("mode 2: every metadata request goes to the metadata subset", "[workspace]") {
  for (double ratio : {0.25, 0.5, 1.0}) {
    INFO("ratio " << ratio);
    Cluster c(4);
    REQUIRE(c.fs(0).CreateWorkspace("shared", Spec(LayoutMode::kCentralizedMeta, ratio), kUser).ok());
    uint32_t servers = MetadataServers(ratio, 4);
    for (uint32_t n = 0; n < 4; ++n) {
      for (int i = 0; i < 50; ++i) c.Write(n, "/shared", "f" + std::to_string(n) + "_" + std::to_string(i), "x");
    }
    std::set<uint32_t> data_nodes;
    for (uint32_t n = 0; n < 4; ++n) {
      for (uint32_t to = servers; to < 4; ++to) CHECK(c.MetaTo(n, to) == 0);
      for (uint32_t to = 0; to < 4; ++to) {
        if (c.WrittenTo(n, to) > 0) data_nodes.insert(to);
      }
    }
    uint64_t busiest = 0;
    for (uint32_t to = 0; to < servers; ++to) busiest = std::max(busiest, c.MetaTo(3, to));
    CHECK(busiest > 0);
    CHECK(data_nodes.size() == 4);  // data is hashed over every node
    CHECK(c.Read(2, "/shared", "f0_7").value() == "x");
  }
}

TEST_CASE("mode 4: data stays on the writer, reads elsewhere fetch it from there", "[workspace]") {
  Cluster c(4);
  REQUIRE(c.fs(0).CreateWorkspace("post", Spec(LayoutMode::kHybrid), kUser).ok());
  std::string data(5 * kChunk + 7, 'h');
  c.Write(2, "/post", "out", data);
  CHECK(c.WrittenTo(2, 2) == data.size());
  for (uint32_t other : {0u, 1u, 3u}) CHECK(c.WrittenTo(2, other) == 0);
  CHECK(c.Read(0, "/post", "out").value() == data);
  CHECK(c.ReadFrom(0, 2) == data.size());
  CHECK(c.stats(2).served().read_bytes.load() == data.size());
  CHECK(c.fs(0).Lookup(c.Walk(0, "/post"), "out")->md.data_location == 2);
}

TEST_CASE("workspaces side by side, renames across them and removal of their roots", "[workspace]") {
  Cluster c(3);
  REQUIRE(c.fs(0).CreateWorkspace("a", Spec(LayoutMode::kNodeLocal), kUser).ok());
  REQUIRE(c.fs(1).CreateWorkspace("b", Spec(LayoutMode::kHashed), kUser).ok());
  CHECK(c.fs(2).CreateWorkspace("b", Spec(LayoutMode::kHashed), kUser).code() == EEXIST);
  c.Write(0, "/a", "f", "in a");
  c.Write(0, "/b", "g", "in b");
  uint64_t a = c.Walk(0, "/a"), b = c.Walk(0, "/b");
  CHECK(c.fs(0).Rename(a, "f", b, "f", 0).code() == EXDEV);
  CHECK(c.fs(0).Rename(a, "f", a, "f2", 0).ok());
  CHECK(c.fs(0).Rename(kRootFileId, "a", kRootFileId, "z", 0).code() == EBUSY);
  CHECK(c.fs(0).Rmdir(kRootFileId, "a").code() == EBUSY);
  // Every node lists both workspaces once in the root.
  for (uint32_t n = 0; n < 3; ++n) CHECK(c.List(n, kRootFileId) == std::vector<std::string>{"a", "b"});
  // A plain directory's name cannot become a workspace; nothing is left behind.
  REQUIRE(c.fs(1).Mkdir(kRootFileId, "plain", 0755, kUser).has_value());
  CHECK(c.fs(0).CreateWorkspace("plain", Spec(LayoutMode::kNodeLocal), kUser).code() == EEXIST);
  for (uint32_t n = 0; n < 3; ++n) CHECK_FALSE(c.members[n].router->Find("plain").has_value());
  CHECK(c.fs(2).Lookup(kRootFileId, "plain")->md.type == FileType::kDirectory);
}

TEST_CASE("removing a workspace removes its entries and data on every node", "[workspace]") {
  for (LayoutMode mode :
       {LayoutMode::kNodeLocal, LayoutMode::kCentralizedMeta, LayoutMode::kHashed, LayoutMode::kHybrid}) {
    INFO("mode " << static_cast<int>(mode));
    Cluster c(4);
    REQUIRE(c.fs(0).CreateWorkspace("job", Spec(mode), kUser).ok());
    std::vector<std::pair<uint64_t, uint64_t>> files;  // (file id, chunks)
    for (uint32_t n = 0; n < 4; ++n) {
      REQUIRE(c.fs(n).Mkdir(c.Walk(n, "/job"), "d" + std::to_string(n), 0755, kUser).has_value());
      for (int i = 0; i < 20; ++i) {
        uint64_t ino = c.Write(n, "/job/d" + std::to_string(n), "f" + std::to_string(i), std::string(3 * kChunk, 'q'));
        files.push_back({ino, 3});
      }
    }
    c.Write(1, "/", "outside", "keep me");
    // Someone else may not; the owner may.
    CHECK(c.fs(3).RemoveWorkspace("job", *c.members[3].router, Caller{2000, 2000, 9}).code() == EPERM);
    CHECK(c.Read(2, "/job/d2", "f0").has_value());
    REQUIRE(c.fs(3).RemoveWorkspace("job", *c.members[3].router, kUser).ok());
    for (uint32_t n = 0; n < 4; ++n) {
      CHECK_FALSE(c.members[n].router->Find("job").has_value());
      CHECK(c.fs(n).Lookup(kRootFileId, "job").error().code() == ENOENT);
      for (auto [id, chunks] : files) {
        char buf[16];
        for (uint64_t k = 0; k < chunks; ++k)
          CHECK(c.members[n].chunks->Read(id, kChunk, k, 0, {buf, sizeof buf}).value() == 0);
      }
      auto left = c.members[n].meta->Scan("D", "", 100);
      REQUIRE(left.has_value());
      for (auto& [key, value] : *left) CHECK(key.find("/job") == std::string::npos);
    }
    CHECK(c.Read(2, "/", "outside").value() == "keep me");
    CHECK(c.fs(0).RemoveWorkspace("job", *c.members[0].router, Caller{0, 0, 1}).code() == ENOENT);
    // The name can be used again.
    REQUIRE(c.fs(0).CreateWorkspace("job", Spec(LayoutMode::kHashed), kUser).ok());
  }
}

TEST_CASE("a restarted node routes its workspaces the same way", "[workspace]") {
  Cluster c(4);
  REQUIRE(c.fs(0).CreateWorkspace("m2", Spec(LayoutMode::kCentralizedMeta, 0.5), kUser).ok());
  REQUIRE(c.fs(0).CreateWorkspace("m4", Spec(LayoutMode::kHybrid), kUser).ok());
  c.Write(3, "/m4", "out", "written on 3");
  c.Write(1, "/m2", "x", "shared");
  c.Assemble(2);  // node 2 restarts: only its stores remain
  auto table = c.members[2].router->List();
  REQUIRE(table.size() == 2);
  CHECK(table["m2"] == Spec(LayoutMode::kCentralizedMeta, 0.5));
  CHECK(table["m4"] == Spec(LayoutMode::kHybrid));
  CHECK(c.Read(2, "/m4", "out").value() == "written on 3");
  CHECK(c.ReadFrom(2, 3) == 12);  // from the writer's node
  CHECK(c.Read(2, "/m2", "x").value() == "shared");
}

}  // namespace
TEST_CASE("O_APPEND from several nodes at once: every record lands once, none over another", "[workspace]") {
  LayoutMode mode = GENERATE(LayoutMode::kCentralizedMeta, LayoutMode::kHashed, LayoutMode::kHybrid);
  CAPTURE(static_cast<int>(mode));
  Cluster c(3);
  REQUIRE(c.fs(0).CreateWorkspace("ws", Spec(mode), kUser).ok());
  c.Write(0, "/ws", "log", "");
  // Every node opens the log before any appends: each one's idea of its size is stale at once.
  std::vector<OpenFile*> open;
  for (uint32_t n = 0; n < 3; ++n) {
    auto e = c.fs(n).Lookup(c.Walk(n, "/ws"), "log");
    REQUIRE(e.has_value());
    auto f = c.fs(n).Open(e->ino, O_WRONLY | O_APPEND, kUser);
    REQUIRE(f.has_value());
    open.push_back(*f);
  }
  std::multiset<std::string> want;
  for (int k = 0; k < 30; ++k) {
    uint32_t n = static_cast<uint32_t>(k % 3);
    std::string rec = "n" + std::to_string(n) + "-r" + std::to_string(10 + k) + "\n";  // 7 bytes
    want.insert(rec);
    // the offset given is ignored, as the kernel's is for O_APPEND
    REQUIRE(c.fs(n).Write(open[n], 0, {rec.data(), rec.size()}).value() == rec.size());
  }
  for (uint32_t n = 0; n < 3; ++n) REQUIRE(c.fs(n).Release(open[n]).ok());
  std::string log = c.Read(1, "/ws", "log").value();
  REQUIRE(log.size() == 30 * 7);
  std::multiset<std::string> got;
  for (size_t at = 0; at < log.size(); at += 7) got.insert(log.substr(at, 7));
  CHECK(got == want);
}

TEST_CASE("a size update past the largest file offset is EFBIG and changes nothing", "[workspace]") {
  Cluster c(1);
  c.Write(0, "/", "f", "abc");
  NodeService& s = *c.members[0].service;
  MetaUpdate append;
  append.append = kMaxFileBytes;
  CHECK(s.UpdateMeta("/f", append).error().code() == EFBIG);
  MetaUpdate grow;
  grow.grow_to = kMaxFileBytes + 1;
  CHECK(s.UpdateMeta("/f", grow).error().code() == EFBIG);
  CHECK(s.GetMeta("/f")->size == 3);
}

}  // namespace bb::fs
