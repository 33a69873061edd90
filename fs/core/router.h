// Router: where each piece of the namespace lives. The core asks it, and only it, which node
// holds a file's metadata (f_meta_file), which nodes hold a directory's entries (f_meta_dir)
// and which node holds a chunk (f_data). The layout modes are implementations of this seam;
// nothing else in the code knows which one is active.
//
// Thread-safety: implementations are immutable after construction; all methods are const.
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
  // f_data: the node holding chunk `index` of the file `file_id`; `data_location` is the node
  // recorded in the file's metadata (kNoNode when none).
  virtual NodeId DataNode(uint64_t file_id, uint64_t index, uint32_t data_location) const = 0;
  // Every node of the instance (statfs sums them; removal of a huge file asks them all).
  virtual std::vector<NodeId> AllNodes() const = 0;
};

}  // namespace bb::fs
