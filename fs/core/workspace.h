// Workspaces: per-job parts of the namespace, each with its own layout (DESIGN.md §5).
//
// A workspace named JOB is the directory /JOB of the instance plus a record of its layout.
// Everything below /JOB is placed by the workspace's layout mode; everything else by the
// instance's own layout (mode 3). The directory entry /JOB itself is kept on every node, like
// the root, so that every node can walk into it whatever the mode.
//
// The record is stored on every node, in the node's MetaStore, under the system key
//   'W' | name
// with the value (version 1; integers little-endian):
//   u8 version (=1)   u8 mode (1..4)   u64 metadata_server_ratio (IEEE-754 bits)
//   u32 chunk_size
// so a restarted daemon routes the workspace the same way (LoadWorkspaces).
//
// WorkspaceRouter is the core's Router: it finds the workspace of a path from the path's
// first component and applies that layout's pure functions (fs/core/layout.h).
//
// Thread-safety: WorkspaceRouter may be used and changed from any number of threads.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fs/base/status.h"
#include "fs/core/layout.h"
#include "fs/core/router.h"
#include "fs/store/meta_store.h"

namespace bb::fs {

inline constexpr uint8_t kWorkspaceVersion = 1;

struct WorkspaceSpec {
  LayoutOptions layout;
  uint32_t chunk_size = 512 * 1024;

  bool operator==(const WorkspaceSpec& o) const {
    return layout.mode == o.layout.mode && chunk_size == o.chunk_size &&
           (layout.mode != LayoutMode::kCentralizedMeta ||
            layout.metadata_server_ratio == o.layout.metadata_server_ratio);
  }
};

std::string WorkspaceKey(std::string_view name);
inline constexpr std::string_view kWorkspaceKeyPrefix = "W";
std::string EncodeWorkspace(const WorkspaceSpec& spec);
// EIO naming what is wrong when `bytes` is not a valid record.
Result<WorkspaceSpec> DecodeWorkspace(std::string_view bytes);
// EINVAL unless `name` can name a workspace: a single path component of 1..255 bytes of
// letters, digits, '.', '_' and '-', not "." or "..".
Status ValidateWorkspaceName(std::string_view name);

class WorkspaceRouter final : public Router {
 public:
  // `instance` is the layout of everything outside workspaces; REQUIRES self < nodes.
  WorkspaceRouter(LayoutOptions instance, uint32_t chunk_size, NodeId self, uint32_t nodes);

  void Set(const std::string& name, const WorkspaceSpec& spec);
  void Erase(const std::string& name);
  std::optional<WorkspaceSpec> Find(std::string_view name) const;
  std::map<std::string, WorkspaceSpec> List() const;
  uint32_t nodes() const { return nodes_; }

  // The data node of a chunk as node `viewer` routes it (removal of a workspace's files on
  // behalf of every node).
  NodeId DataNodeAs(NodeId viewer, std::string_view path, uint64_t file_id, uint64_t index,
                    uint32_t data_location) const;

  NodeId self() const override { return self_; }
  NodeId MetaNode(std::string_view path) const override;
  std::vector<NodeId> DirNodes(std::string_view dir) const override;
  NodeId DataNode(std::string_view path, uint64_t file_id, uint64_t index,
                  uint32_t data_location) const override {
    return DataNodeAs(self_, path, file_id, index, data_location);
  }
  std::vector<NodeId> AllNodes() const override;
  bool Replicated(std::string_view path) const override;
  std::string_view Domain(std::string_view path) const override;
  uint32_t ChunkSize(std::string_view path) const override;
  uint32_t NewDataLocation(std::string_view path) const override;
  bool NodePrivate(std::string_view path) const override;

 private:
  // The layout that places `path` (the workspace's, or the instance's).
  WorkspaceSpec SpecFor(std::string_view path) const;
  // The spec of the workspace whose root `path` is ("/name"), if it is one.
  std::optional<WorkspaceSpec> RootSpec(std::string_view path) const;

  const WorkspaceSpec instance_;
  const NodeId self_;
  const uint32_t nodes_;
  std::atomic<bool> any_{false};  // fast path while no workspace exists
  mutable std::shared_mutex mu_;  // guards table_
  std::map<std::string, WorkspaceSpec, std::less<>> table_;
};

// Reads every workspace record of `store` into `router`.
Status LoadWorkspaces(MetaStore* store, WorkspaceRouter* router);

}  // namespace bb::fs
