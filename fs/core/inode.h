// Private to the core: the in-memory state of inodes the kernel knows, open files and directory
// listings.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "fs/core/file_system.h"

namespace bb::fs {

struct Inode {
  explicit Inode(uint64_t i) : ino(i) {}
  const uint64_t ino;

  // Guarded by FileSystem::table_mu_.
  std::string path;
  uint64_t nlookup = 0;
  uint32_t open_count = 0;
  bool unlinked = false;  // removed from the namespace while still open
  // Router::NodePrivate of its path, set when the kernel learns the inode (a rename never
  // moves an entry between workspaces, so it never changes).
  std::atomic<bool> node_private{false};

  std::mutex mu;  // guards the fields below; taken after table_mu_
  Metadata meta;        // last known metadata (the only copy once unlinked)
  uint64_t size = 0;    // known size including writes not yet published
  bool size_dirty = false;
  int64_t dirty_mtime_ns = 0;
  int64_t last_publish_ns = 0;
  std::set<NodeId> written_nodes;  // nodes holding chunks written since the last fsync
  // Write-behind (FileSystem::WriteBehind): the chunks with a write still on its way to another
  // node (one per chunk at a time keeps them in order), and the first error one of them met,
  // reported by the next write, flush or fsync.
  std::set<uint64_t> behind_chunks;
  Status behind_error;
  std::condition_variable behind_cv;  // with mu: a write behind finished
};

struct OpenFile {
  std::shared_ptr<Inode> inode;
  int flags = 0;
  std::string path;           // at open; routes the data (renames never change the layout)
  bool node_private = false;  // Router::NodePrivate of `path`
};

struct DirHandle {
  uint64_t ino = 0;
  uint64_t parent_ino = 0;
  std::string path;
  std::vector<DirListing> entries;  // ".", "..", then merged pages in name order
  std::string cursor;               // every name <= cursor is in `entries`
  bool complete = false;
};

}  // namespace bb::fs
