// Router: where each piece of the namespace lives. The core asks it, and only it, which node
// holds a file's metadata (f_meta_file), which nodes hold a directory's entries (f_meta_dir)
// and which node holds a chunk (f_data), and what a new file's layout fields are. The layout
// modes are implementations of this seam (fs/core/workspace.h); nothing else in the code knows
// which one is active.
//
// Thread-safety: all methods are const and may be called concurrently; an implementation may
// change its answers (a workspace created or removed) but each answer is consistent.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace bb::fs {

using NodeId = uint32_t;

class Router {
 public:
  virtual ~Router() = default;
  // The node this daemon runs on.
  virtual NodeId self() const = 0;
  // f_meta_file: the node holding the metadata entry of `path`.
  virtual NodeId MetaNode(std::string_view path) const = 0;
  // f_meta_dir: the nodes that may hold entries of directory `dir` (readdir asks all of them).
  virtual std::vector<NodeId> DirNodes(std::string_view dir) const = 0;
  // f_data: the node holding chunk `index` of the file `file_id` at `path`; `data_location` is
  // the node recorded in the file's metadata (kNoNode when none).
  virtual NodeId DataNode(std::string_view path, uint64_t file_id, uint64_t index,
                          uint32_t data_location) const = 0;
  // Every node of the instance (statfs sums them; removal of a huge file asks them all).
  virtual std::vector<NodeId> AllNodes() const = 0;

  // Entries kept on every node (the root, the root of each workspace): read from the local
  // node, changed on all of them, never removed or renamed by a file operation.
  virtual bool Replicated(std::string_view path) const = 0;
  // The layout domain of `path`: "" for the instance's own layout, else the workspace's name.
  // A rename never crosses domains (EXDEV), so a file keeps its layout for life.
  virtual std::string_view Domain(std::string_view path) const = 0;
  // Layout fields of a new regular file at `path`: its chunk size, and the node recorded as
  // its data location (kNoNode when the layout does not record one).
  virtual uint32_t ChunkSize(std::string_view path) const = 0;
  virtual uint32_t NewDataLocation(std::string_view path) const = 0;
  // True when the entries and data at `path` are seen by this node only, so the kernel may
  // cache them for long.
  virtual bool NodePrivate(std::string_view path) const = 0;
};

}  // namespace bb::fs
