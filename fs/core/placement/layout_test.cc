// Table-driven placement tests of the four layout modes.
#include "fs/core/placement/layout.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "fs/base/hash.h"
#include "fs/store/metadata.h"

namespace bb::fs {
namespace {

std::vector<std::string> Paths() {
  std::vector<std::string> p;
  for (int i = 0; i < 2000; ++i) p.push_back("/job/rank" + std::to_string(i) + "/out.dat");
  return p;
}

TEST_CASE("metadata subset sizes of mode 2", "[layout]") {
  struct Row {
    double ratio;
    uint32_t nodes, want;
  };
  const Row rows[] = {{0.25, 1, 1}, {0.25, 3, 1}, {0.25, 4, 1}, {0.25, 8, 2}, {0.5, 1, 1}, {0.5, 3, 2}, {0.5, 4, 2},
                      {0.5, 8, 4},  {1, 1, 1},    {1, 3, 3},    {1, 4, 4},    {1, 8, 8},   {0.01, 8, 1}};
  for (const Row& r : rows) {
    INFO("ratio " << r.ratio << " nodes " << r.nodes);
    CHECK(MetadataServers(r.ratio, r.nodes) == r.want);
  }
}

TEST_CASE("each mode places data, file metadata and directory entries as specified", "[layout]") {
  for (uint32_t nodes : {1u, 3u, 4u, 8u}) {
    for (NodeId self = 0; self < nodes; ++self) {
      INFO("nodes " << nodes << " self " << self);
      // mode 1: everything on self
      LayoutOptions m1{LayoutMode::kNodeLocal};
      for (const auto& p : Paths()) CHECK(MetaNodeFor(m1, {nodes, self}, p) == self);
      CHECK(DataNodeFor(m1, {nodes, self}, 42, 7, kNoNode) == self);
      CHECK(DirNodesFor(m1, {nodes, self}) == std::vector<NodeId>{self});
      // mode 3: hashed over all nodes, the same from every node
      LayoutOptions m3{LayoutMode::kHashed};
      std::set<NodeId> meta_used, data_used;
      for (const auto& p : Paths()) {
        NodeId n = MetaNodeFor(m3, {nodes, self}, p);
        CHECK(n == MetaNodeFor(m3, {nodes, (self + 1) % nodes}, p));
        meta_used.insert(n);
      }
      for (uint64_t c = 0; c < 2000; ++c) data_used.insert(DataNodeFor(m3, {nodes, self}, 99, c, kNoNode));
      CHECK(meta_used.size() == nodes);  // 2000 paths reach every node
      CHECK(data_used.size() == nodes);
      CHECK(DirNodesFor(m3, {nodes, self}).size() == nodes);
      // mode 4: data on the recorded writer, else on self; metadata as mode 3
      LayoutOptions m4{LayoutMode::kHybrid};
      CHECK(DataNodeFor(m4, {nodes, self}, 99, 5, nodes - 1) == nodes - 1);
      CHECK(DataNodeFor(m4, {nodes, self}, 99, 5, kNoNode) == self);
      CHECK(DataNodeFor(m4, {nodes, self}, 99, 5, nodes + 7) == self);  // stale record
      for (const auto& p : Paths()) CHECK(MetaNodeFor(m4, {nodes, self}, p) == MetaNodeFor(m3, {nodes, self}, p));
      CHECK(DirNodesFor(m4, {nodes, self}).size() == nodes);
    }
  }
}

TEST_CASE("mode 2 keeps all metadata on the subset and spreads data over all nodes", "[layout]") {
  for (double ratio : {0.25, 0.5, 1.0}) {
    for (uint32_t nodes : {1u, 3u, 4u, 8u}) {
      INFO("ratio " << ratio << " nodes " << nodes);
      LayoutOptions m2{LayoutMode::kCentralizedMeta, ratio};
      uint32_t k = MetadataServers(ratio, nodes);
      std::set<NodeId> meta_used, data_used;
      for (const auto& p : Paths()) meta_used.insert(MetaNodeFor(m2, {nodes, 0}, p));
      for (uint64_t c = 0; c < 2000; ++c) data_used.insert(DataNodeFor(m2, {nodes, 0}, 7, c, kNoNode));
      CHECK(meta_used.size() == k);
      CHECK(*meta_used.rbegin() == k - 1);
      CHECK(data_used.size() == nodes);
      CHECK(DirNodesFor(m2, {nodes, 0}).size() == k);
    }
  }
  // ratio 0.25 on 4 nodes: one metadata server, node 0
  LayoutOptions quarter{LayoutMode::kCentralizedMeta, 0.25};
  for (const auto& p : Paths()) CHECK(MetaNodeFor(quarter, {4, 3}, p) == 0);
}

TEST_CASE("every mode of the table is found by its number and places inside the cluster", "[layout]") {
  CHECK(Modes().size() == kModeCount);
  CHECK(FindMode(0) == nullptr);
  CHECK(FindMode(static_cast<int64_t>(kModeCount) + 1) == nullptr);
  for (const ModeInfo& m : Modes()) {
    INFO("mode " << m.name);
    CHECK(FindMode(ModeNumber(m.mode)) == &m);
    CHECK(&ModeOf(m.mode) == &m);
    CHECK(std::string(m.name).size() > 0);
    for (uint32_t nodes : {1u, 4u, 7u}) {
      for (NodeId self = 0; self < nodes; ++self) {
        LayoutOptions o{m.mode, 0.5};
        NodeView v{nodes, self};
        std::vector<NodeId> dirs = m.meta_dir(o, v);
        REQUIRE_FALSE(dirs.empty());
        for (NodeId d : dirs) CHECK(d < nodes);
        for (const auto& p : Paths()) {
          NodeId meta = m.meta_file(o, v, p);
          CHECK(meta < nodes);
          // A file's entry is on one of the nodes its directory's entries may be on.
          CHECK(std::find(dirs.begin(), dirs.end(), meta) != dirs.end());
        }
        DataPlacement d = m.data(o, v, 99, kNoNode);
        for (uint64_t c = 0; c < 64; ++c) CHECK(d.For(c) < nodes);
        if (m.node_private) {
          CHECK(d.fixed());
          CHECK(d.For(5) == self);
          CHECK(dirs == std::vector<NodeId>{self});
        }
        if (m.records_data_location) CHECK(m.data(o, v, 99, nodes - 1).For(3) == nodes - 1);
        if (m.uses_metadata_ratio) CHECK(dirs.size() == MetadataServers(0.5, nodes));
      }
    }
  }
}

TEST_CASE("where a mode keeps a new file's first chunk with its entry, the ids that suit do, and the rest spread",
          "[layout]") {
  for (const ModeInfo& m : Modes()) {
    INFO("mode " << m.name);
    for (uint32_t nodes : {1u, 4u, 7u}) {
      PathLayout layout{"", WorkspaceSpec{{m.mode, 0.25}, kDefaultChunkSize}, false, NodeView{nodes, 0}};
      if (m.first_chunk_with_entry) {
        // Only where the entries and the data spread over the same nodes: every node.
        CHECK(layout.DirNodes().size() == nodes);
      }
      for (const auto& p : Paths()) {
        size_t suiting = 0;
        std::set<NodeId> later_chunks;
        for (uint64_t id = 1; id <= 64 * nodes; ++id) {
          if (!layout.SuitsNewFile(id, p)) continue;
          ++suiting;
          DataPlacement d = layout.Data(id, kNoNode);
          if (m.first_chunk_with_entry) CHECK(d.For(0) == layout.MetaNode(p));
          for (uint64_t c = 1; c < 8; ++c) later_chunks.insert(d.For(c));
        }
        if (!m.first_chunk_with_entry) {
          CHECK(suiting == 64 * nodes);  // any id
        } else {
          CHECK(suiting > 32);  // about one id in `nodes`
          if (!m.node_private) CHECK(later_chunks.size() == nodes);
        }
        // A replicated entry (a workspace's root) takes any id.
        PathLayout root = layout;
        root.replicated = true;
        CHECK(root.SuitsNewFile(12345, p));
      }
    }
  }
  CHECK(ModeOf(LayoutMode::kHashed).first_chunk_with_entry);
  CHECK_FALSE(ModeOf(LayoutMode::kCentralizedMeta).first_chunk_with_entry);
}

TEST_CASE("workspace specs compare the ratio only where the mode uses it", "[layout]") {
  for (const ModeInfo& m : Modes()) {
    WorkspaceSpec a{{m.mode, 0.25}, 1 << 20}, b{{m.mode, 0.5}, 1 << 20};
    CHECK((a == b) == !m.uses_metadata_ratio);
    CHECK(ValidateSpec(a).ok());
    CHECK(ValidateSpec(WorkspaceSpec{{m.mode, 0}, 1 << 20}).code() == EINVAL);
    CHECK(ValidateSpec(WorkspaceSpec{{m.mode, 0.5}, 5000}).code() == EINVAL);
  }
  CHECK(ValidateSpec(WorkspaceSpec{{static_cast<LayoutMode>(kModeCount + 1), 0.5}, 1 << 20}).code() == EINVAL);
  CHECK(ModeNumbers() == "1, 2, 3 or 4");
}

TEST_CASE("the placement hash is fixed across builds", "[layout]") {
  // Golden values recorded when the hash was chosen: if one changes, every object of an
  // existing instance moves. Do not update them; change the hash's version instead.
  CHECK(PlacementHash("/") == 0x406f990ed0023d06ULL);
  CHECK(PlacementHash("/job/rank0/out.dat") == 0xec1a8e11794dad55ULL);
  CHECK(ChunkHash(1, 0) == 0xbd9d5fd023a109abULL);
  CHECK(ChunkHash(0x1000000000001ULL, 5) == 0x90b51a7857533b62ULL);
}

}  // namespace
}  // namespace bb::fs
