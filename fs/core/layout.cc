#include "fs/core/layout.h"

#include <cmath>

#include "fs/base/hash.h"
#include "fs/store/metadata.h"

namespace bb::fs {

uint32_t MetadataServers(double ratio, uint32_t nodes) {
  // The epsilon keeps 0.25 * 8 at 2 despite floating-point rounding.
  auto k = static_cast<uint32_t>(std::ceil(ratio * nodes - 1e-9));
  if (k < 1) k = 1;
  return k > nodes ? nodes : k;
}

NodeId DataNodeFor(const LayoutOptions& o, uint32_t nodes, NodeId self, uint64_t file_id,
                   uint64_t chunk, uint32_t data_location) {
  switch (o.mode) {
    case LayoutMode::kNodeLocal:
      return self;
    case LayoutMode::kHybrid:
      return data_location != kNoNode && data_location < nodes ? data_location : self;
    case LayoutMode::kCentralizedMeta:
    case LayoutMode::kHashed:
      break;
  }
  return static_cast<NodeId>(ChunkHash(file_id, chunk) % nodes);
}

NodeId MetaNodeFor(const LayoutOptions& o, uint32_t nodes, NodeId self, std::string_view path) {
  switch (o.mode) {
    case LayoutMode::kNodeLocal:
      return self;
    case LayoutMode::kCentralizedMeta:
      return static_cast<NodeId>(PlacementHash(path) % MetadataServers(o.metadata_server_ratio, nodes));
    case LayoutMode::kHashed:
    case LayoutMode::kHybrid:
      break;
  }
  return static_cast<NodeId>(PlacementHash(path) % nodes);
}

std::vector<NodeId> DirNodesFor(const LayoutOptions& o, uint32_t nodes, NodeId self) {
  uint32_t count = nodes;
  switch (o.mode) {
    case LayoutMode::kNodeLocal:
      return {self};
    case LayoutMode::kCentralizedMeta:
      count = MetadataServers(o.metadata_server_ratio, nodes);
      break;
    case LayoutMode::kHashed:
    case LayoutMode::kHybrid:
      break;
  }
  std::vector<NodeId> out(count);
  for (uint32_t i = 0; i < count; ++i) out[i] = i;
  return out;
}

}  // namespace bb::fs
