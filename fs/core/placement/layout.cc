#include "fs/core/placement/layout.h"

#include <cmath>

#include "fs/base/hash.h"

namespace bb::fs {
namespace {

DataPlacement OnSelf(const LayoutOptions&, NodeView v, uint64_t, uint32_t) { return DataPlacement::Fixed(v.self); }

DataPlacement HashedData(const LayoutOptions&, NodeView v, uint64_t file_id, uint32_t) {
  return DataPlacement::Hashed(file_id, v.nodes);
}

// The node recorded at create; a record naming no node of this cluster (none, or a stale one
// from a larger instance) falls back to this node.
DataPlacement AtDataLocation(const LayoutOptions&, NodeView v, uint64_t, uint32_t data_location) {
  return DataPlacement::Fixed(data_location != kNoNode && data_location < v.nodes ? data_location : v.self);
}

NodeId MetaOnSelf(const LayoutOptions&, NodeView v, std::string_view) { return v.self; }

NodeId MetaHashed(const LayoutOptions&, NodeView v, std::string_view path) {
  return static_cast<NodeId>(PlacementHash(path) % v.nodes);
}

NodeId MetaOnSubset(const LayoutOptions& o, NodeView v, std::string_view path) {
  return static_cast<NodeId>(PlacementHash(path) % MetadataServers(o.metadata_server_ratio, v.nodes));
}

std::vector<NodeId> FirstNodes(uint32_t count) {
  std::vector<NodeId> out(count);
  for (uint32_t i = 0; i < count; ++i) out[i] = i;
  return out;
}

std::vector<NodeId> DirsOnSelf(const LayoutOptions&, NodeView v) { return {v.self}; }
std::vector<NodeId> DirsOnAll(const LayoutOptions&, NodeView v) { return FirstNodes(v.nodes); }
std::vector<NodeId> DirsOnSubset(const LayoutOptions& o, NodeView v) {
  return FirstNodes(MetadataServers(o.metadata_server_ratio, v.nodes));
}

// The modes, in mode-number order (ModeOf indexes it by number - 1).
constexpr ModeInfo kModes[] = {
    {LayoutMode::kNodeLocal, "node-local",
     "each node sees only its own files; data and metadata stay on the node that made them", OnSelf, MetaOnSelf,
     DirsOnSelf, /*records_data_location=*/false, /*node_private=*/true,
     /*uses_metadata_ratio=*/false, /*first_chunk_with_entry=*/false},
    {LayoutMode::kCentralizedMeta, "centralized-metadata",
     "one namespace whose metadata lives on the first ceil(ratio * N) nodes; data hashed over all", HashedData,
     MetaOnSubset, DirsOnSubset, false, false, true, false},
    {LayoutMode::kHashed, "distributed-hashing", "one namespace; metadata and data hashed over all nodes", HashedData,
     MetaHashed, DirsOnAll, false, false, false, true},
    {LayoutMode::kHybrid, "hybrid",
     "one namespace; a file's data stays on the node that created it, metadata hashed over all", AtDataLocation,
     MetaHashed, DirsOnAll, true, false, false, false},
};
static_assert(std::size(kModes) == kModeCount, "one row per LayoutMode");

}  // namespace

std::span<const ModeInfo> Modes() { return kModes; }

const ModeInfo& ModeOf(LayoutMode mode) { return kModes[static_cast<size_t>(mode) - 1]; }

const ModeInfo* FindMode(int64_t number) {
  for (const ModeInfo& m : kModes) {
    if (ModeNumber(m.mode) == number) return &m;
  }
  return nullptr;
}

std::string ModeNumbers() {
  std::string out;
  for (size_t i = 0; i < kModeCount; ++i) {
    if (i > 0) out += i + 1 == kModeCount ? " or " : ", ";
    out += std::to_string(ModeNumber(kModes[i].mode));
  }
  return out;
}

uint32_t MetadataServers(double ratio, uint32_t nodes) {
  // The epsilon keeps 0.25 * 8 at 2 despite floating-point rounding.
  auto k = static_cast<uint32_t>(std::ceil(ratio * nodes - 1e-9));
  if (k < 1) k = 1;
  return k > nodes ? nodes : k;
}

bool WorkspaceSpec::operator==(const WorkspaceSpec& o) const {
  return layout.mode == o.layout.mode && chunk_size == o.chunk_size &&
         (!ModeOf(layout.mode).uses_metadata_ratio || layout.metadata_server_ratio == o.layout.metadata_server_ratio);
}

Status ValidateSpec(const WorkspaceSpec& spec) {
  if (FindMode(ModeNumber(spec.layout.mode)) == nullptr) {
    return Status(EINVAL, "mode " + std::to_string(ModeNumber(spec.layout.mode)) + " is not " + ModeNumbers());
  }
  BB_RETURN_IF_ERROR(CheckChunkSize(spec.chunk_size));
  if (!(spec.layout.metadata_server_ratio > 0 && spec.layout.metadata_server_ratio <= 1)) {
    return Status(EINVAL, "metadata_server_ratio must be in (0, 1]");
  }
  return Status::Ok();
}

}  // namespace bb::fs
