// Router: which layout places each path — the only thing the core asks about placement. It
// answers which workspace a path is in (the first component of the path names it; everything
// else belongs to the instance's own layout) with that workspace's spec; the core applies the
// mode's functions from the mode table (fs/core/placement/layout.h) itself. WorkspaceRouter
// (fs/core/placement/workspace.h) is the implementation; nothing else knows which modes are in use.
//
// Thread-safety: all methods are const and may be called concurrently; an implementation may
// change its answers (a workspace created or removed) but each answer is consistent.
#pragma once

#include <string_view>

#include "fs/core/placement/layout.h"

namespace bb::fs {

class Router {
 public:
  virtual ~Router() = default;
  // This node and the number of nodes of the instance.
  virtual NodeView view() const = 0;
  // The layout that places `path` (an absolute, normalized path). The root and the root of
  // each workspace are `replicated`: their entries are kept on every node, read from the local
  // one, changed on all, never removed or renamed by a file operation. A workspace's root
  // belongs to the workspace (its entries and node_private follow the workspace's mode). A
  // rename never crosses domains (EXDEV), so a file keeps its layout for life.
  virtual PathLayout Resolve(std::string_view path) const = 0;
};

// Every node of the instance, in id order.
inline std::vector<NodeId> AllNodes(const Router& r) {
  std::vector<NodeId> all(r.view().nodes);
  for (NodeId i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

}  // namespace bb::fs
