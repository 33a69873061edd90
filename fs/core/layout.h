// The four layout modes as routing policies (DESIGN.md §5). A mode is a triplet of pure
// functions — f_data, f_meta_file, f_meta_dir — over (layout options, node count, self, path,
// file id, chunk index); WorkspaceRouter (fs/core/workspace.h) applies them per workspace as the
// core's Router. Nothing outside these two files knows which mode is active.
//
//   mode 1 node-local:        data self;                 file metadata self;      dirs {self}
//   mode 2 centralized meta:  data hash(id, chunk) % N;  meta S[hash(path) % |S|]; dirs S
//                             where S = nodes 0 .. ceil(ratio * N) - 1
//   mode 3 distributed hash:  data hash(id, chunk) % N;  meta hash(path) % N;     dirs all
//   mode 4 hybrid:            data the writer's node (data_location, else self);
//                             meta hash(path) % N;       dirs all
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fs/core/router.h"  // NodeId

namespace bb::fs {

enum class LayoutMode : uint8_t { kNodeLocal = 1, kCentralizedMeta = 2, kHashed = 3, kHybrid = 4 };

struct LayoutOptions {
  LayoutMode mode = LayoutMode::kHashed;
  double metadata_server_ratio = 0.25;  // mode 2 only; in (0, 1]
};

// Size of mode 2's metadata subset for `nodes` nodes: ceil(ratio * nodes), at least 1.
uint32_t MetadataServers(double ratio, uint32_t nodes);

NodeId DataNodeFor(const LayoutOptions& o, uint32_t nodes, NodeId self, uint64_t file_id,
                   uint64_t chunk, uint32_t data_location);
NodeId MetaNodeFor(const LayoutOptions& o, uint32_t nodes, NodeId self, std::string_view path);
std::vector<NodeId> DirNodesFor(const LayoutOptions& o, uint32_t nodes, NodeId self);

}  // namespace bb::fs
