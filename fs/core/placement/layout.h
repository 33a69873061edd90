// The layout modes as routing policies (docs/architecture.md#the-four-layout-modes), in one table:
// Modes(). A mode is a row of pure functions — f_data, f_meta_file, f_meta_dir — over (layout
// options, the cluster as this node sees it, path, file id, chunk index), plus what the rest of the
// system needs to know of it (whether a new file records its data location, whether its files are
// node-private, whether it uses the metadata ratio). Every other place that needs a mode reads this
// table: the workspace record, the mode file, the daemon's control commands, bbctl. A fifth mode is
// one row (and its functions); the table-driven tests cover it.
//
//   mode 1 node-local:        data self;                 file metadata self;      dirs {self}
//   mode 2 centralized meta:  data hash(id, chunk) % N;  meta S[hash(path) % |S|]; dirs S
//                             where S = nodes 0 .. ceil(ratio * N) - 1
//   mode 3 distributed hash:  data hash(id, chunk) % N;  meta hash(path) % N;     dirs all
//                             a new file's id is one whose chunk 0 hashes to its entry's node
//   mode 4 hybrid:            data the writer's node (data_location, else self);
//                             meta hash(path) % N;       dirs all
//
// f_data is resolved once per file (DataPlacement) when the file is opened or created, so the
// per-chunk path of a read or write does one hash and no lookup, lock or indirect call.
//
// Thread-safety: pure functions and immutable tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/hash.h"
#include "fs/base/status.h"
#include "fs/core/placement/chunking.h"
#include "fs/store/metadata.h"  // kNoNode

namespace bb::fs {

using NodeId = uint32_t;

enum class LayoutMode : uint8_t { kNodeLocal = 1, kCentralizedMeta = 2, kHashed = 3, kHybrid = 4 };
inline constexpr size_t kModeCount = 4;

struct LayoutOptions {
  LayoutMode mode = LayoutMode::kHashed;
  double metadata_server_ratio = 0.25;  // modes that use it (ModeInfo::uses_metadata_ratio); (0, 1]
};

// The cluster as one node sees it. REQUIRES: self < nodes.
struct NodeView {
  uint32_t nodes = 1;
  NodeId self = 0;
};

// f_data of one file: the node holding each of its chunks.
class DataPlacement {
 public:
  DataPlacement() = default;
  static DataPlacement Fixed(NodeId node) { return DataPlacement(0, 0, node); }
  // Chunk i on ChunkHash(file_id, i) % nodes. REQUIRES: nodes > 0.
  static DataPlacement Hashed(uint64_t file_id, uint32_t nodes) { return DataPlacement(file_id, nodes, 0); }

  NodeId For(uint64_t chunk) const {
    return modulus_ == 0 ? fixed_ : static_cast<NodeId>(ChunkHash(file_id_, chunk) % modulus_);
  }
  bool fixed() const { return modulus_ == 0; }

 private:
  DataPlacement(uint64_t file_id, uint32_t modulus, NodeId fixed)
      : file_id_(file_id), modulus_(modulus), fixed_(fixed) {}
  uint64_t file_id_ = 0;
  uint32_t modulus_ = 0;  // 0: every chunk on fixed_
  NodeId fixed_ = 0;
};

struct ModeInfo {
  LayoutMode mode;
  const char* name;     // "node-local"
  const char* summary;  // what a job sees, one sentence
  // f_data of a file whose metadata records `data_location` (kNoNode: none).
  DataPlacement (*data)(const LayoutOptions&, NodeView, uint64_t file_id, uint32_t data_location);
  // f_meta_file: the node holding the entry of `path`.
  NodeId (*meta_file)(const LayoutOptions&, NodeView, std::string_view path);
  // f_meta_dir: the nodes that may hold entries of a directory.
  std::vector<NodeId> (*meta_dir)(const LayoutOptions&, NodeView);
  bool records_data_location;  // a new file records its creating node as data_location
  bool node_private;           // entries and data are seen by their own node only
  bool uses_metadata_ratio;    // metadata_server_ratio matters
  // A new file gets an id whose first chunk f_data places on its entry's node (f_meta_file), so
  // that a small file's data and size go to one node in one request (WriteChunkAndUpdate). Only
  // where both functions spread over the same nodes: in mode 2 it would put small files' data on
  // the metadata subset.
  bool first_chunk_with_entry;
};

// Every mode, in mode-number order.
std::span<const ModeInfo> Modes();
// REQUIRES: `mode` is one of the table's.
const ModeInfo& ModeOf(LayoutMode mode);
// The mode numbered `number`, or nullptr.
const ModeInfo* FindMode(int64_t number);
inline int ModeNumber(LayoutMode mode) { return static_cast<int>(mode); }
// "1, 2, 3 or 4": the valid mode numbers, for error messages.
std::string ModeNumbers();

// Size of the metadata subset for `nodes` nodes: ceil(ratio * nodes), at least 1.
uint32_t MetadataServers(double ratio, uint32_t nodes);

// A workspace's layout: its mode with options, and the chunk size of its files.
struct WorkspaceSpec {
  LayoutOptions layout;
  uint32_t chunk_size = kDefaultChunkSize;

  // Equal modes and chunk sizes, and equal ratios where the mode uses one.
  bool operator==(const WorkspaceSpec& o) const;
};

// EINVAL naming what is wrong unless `spec` is a layout a workspace may have: a mode of the
// table, a valid chunk size (IsValidChunkSize), a ratio in (0, 1].
Status ValidateSpec(const WorkspaceSpec& spec);

// The layout that places one path (Router::Resolve): its domain and that domain's spec, applied
// for the node it was resolved on.
struct PathLayout {
  std::string domain;       // "" for the instance's own layout, else the workspace's name
  WorkspaceSpec spec;       // of the domain
  bool replicated = false;  // the root or a workspace's root: kept on every node, read locally
  NodeView view;

  const ModeInfo& mode() const { return ModeOf(spec.layout.mode); }
  // f_meta_file of `path`. The entry of a replicated path is on every node instead.
  NodeId MetaNode(std::string_view path) const { return mode().meta_file(spec.layout, view, path); }
  // f_meta_dir: the nodes that may hold entries of the directory at this path.
  std::vector<NodeId> DirNodes() const { return mode().meta_dir(spec.layout, view); }
  // f_data of a file at this path.
  DataPlacement Data(uint64_t file_id, uint32_t data_location) const {
    return mode().data(spec.layout, view, file_id, data_location);
  }
  // data_location of a new regular file here (kNoNode when the mode records none).
  uint32_t NewDataLocation() const { return mode().records_data_location ? view.self : kNoNode; }
  // Whether file id `id` suits a new file at `path` (ModeInfo::first_chunk_with_entry; any id
  // when the mode asks for none, or the entry is on every node).
  bool SuitsNewFile(uint64_t id, std::string_view path) const {
    return !mode().first_chunk_with_entry || replicated || Data(id, kNoNode).For(0) == MetaNode(path);
  }
  // Whether only this node sees what is here, so the kernel may cache it for long.
  bool node_private() const { return mode().node_private; }
};

// Shorthands over the table (placement tests read better with them).
inline NodeId MetaNodeFor(const LayoutOptions& o, NodeView v, std::string_view path) {
  return ModeOf(o.mode).meta_file(o, v, path);
}
inline std::vector<NodeId> DirNodesFor(const LayoutOptions& o, NodeView v) { return ModeOf(o.mode).meta_dir(o, v); }
inline NodeId DataNodeFor(const LayoutOptions& o, NodeView v, uint64_t file_id, uint64_t chunk,
                          uint32_t data_location) {
  return ModeOf(o.mode).data(o, v, file_id, data_location).For(chunk);
}

}  // namespace bb::fs
