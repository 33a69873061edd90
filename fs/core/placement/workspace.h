// Workspaces: per-job parts of the namespace, each with its own layout
// (docs/architecture.md#workspaces-and-mode-files).
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
// first component (fs/core/placement/router.h).
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
#include "fs/core/placement/layout.h"
#include "fs/core/placement/router.h"
#include "fs/store/meta_store.h"

namespace bb::fs {

inline constexpr uint8_t kWorkspaceVersion = 1;

std::string WorkspaceKey(std::string_view name);
inline constexpr std::string_view kWorkspaceKeyPrefix = "W";
std::string EncodeWorkspace(const WorkspaceSpec& spec);
// EIO naming what is wrong when `bytes` is not a valid record (ValidateSpec).
Result<WorkspaceSpec> DecodeWorkspace(std::string_view bytes);
// EINVAL unless `name` can name a workspace: a single path component of 1..255 bytes of
// letters, digits, '.', '_' and '-', not "." or "..".
Status ValidateWorkspaceName(std::string_view name);

class WorkspaceRouter final : public Router {
 public:
  // `instance` is the layout of everything outside workspaces; REQUIRES view.self < view.nodes.
  WorkspaceRouter(WorkspaceSpec instance, NodeView view);

  void Set(const std::string& name, const WorkspaceSpec& spec);
  void Erase(const std::string& name);
  std::optional<WorkspaceSpec> Find(std::string_view name) const;
  std::map<std::string, WorkspaceSpec> List() const;

  NodeView view() const override { return view_; }
  PathLayout Resolve(std::string_view path) const override;

 private:
  const WorkspaceSpec instance_;
  const NodeView view_;
  std::atomic<bool> any_{false};  // fast path while no workspace exists
  mutable std::shared_mutex mu_;  // guards table_
  std::map<std::string, WorkspaceSpec, std::less<>> table_;
};

// Reads every workspace record of `store` into `router`.
Status LoadWorkspaces(MetaStore* store, WorkspaceRouter* router);

}  // namespace bb::fs
