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

#include "fs/core/data/write_behind.h"
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
  // PathLayout::node_private of its path, set when the kernel learns the inode (a rename never
  // moves an entry between workspaces, so it never changes).
  std::atomic<bool> node_private{false};

  std::mutex mu;  // guards the fields below; taken after table_mu_
  Metadata meta;  // last known metadata (the only copy once unlinked)
  // With size_dirty: the end of this node's writes not yet published, or not yet answered by
  // their owner (the file is at least that long; its owner keeps the larger of its size and
  // this). Else the size last known here.
  uint64_t size = 0;
  bool size_dirty = false;
  int64_t dirty_mtime_ns = 0;
  int64_t last_publish_ns = 0;
  // Writes begun here, and the one of them whose size its chunk's node last took with the chunk
  // (SizeAlong): while no later write began, nothing of the size is unpublished.
  uint64_t writes = 0;
  uint64_t size_taken_at = 0;
  // The asks of owners this node had sent (FileSystem::AskMeta) when the answer to its last
  // change of the file came, or when it failed unanswered: an answer to an ask with a lower
  // ticket may not hold that change (TakeMeta, ChangeUnanswered).
  uint64_t change_came = 0;
  // `meta` answers getattr and open until then (FileSystemOptions::attr_cache_ns).
  int64_t fresh_until_ns = 0;
  std::set<NodeId> written_nodes;  // nodes holding chunks written since the last fsync
  BehindState behind{&mu};         // writes of this file on their way to other nodes (write_behind.h)
  // A record lock of the file was set from this node (since then, closes unlock at its lock node).
  std::atomic<bool> locked{false};
};

// The file's writes behind, kept alive with the inode while they are on their way.
inline std::shared_ptr<BehindState> BehindOf(const std::shared_ptr<Inode>& inode) {
  return std::shared_ptr<BehindState>(inode, &inode->behind);
}

struct OpenFile {
  std::shared_ptr<Inode> inode;
  int flags = 0;
  std::string path;           // at open (renames never change the layout)
  bool node_private = false;  // PathLayout::node_private of `path`
  // Where the file's chunks are, resolved at open (a file keeps its layout for life): the
  // per-chunk path of reads and writes asks nothing else.
  DataPlacement data;
  // For the I/O profile: the profile of `path`'s workspace when it was profiled at open (null
  // otherwise), and the process that opened the file (its reads and writes are counted as that
  // process's).
  std::shared_ptr<ProfileWorkspace> profiled;
  pid_t pid = 0;
  // Made by this open in a stream of small files (CreateStreams): its writes go through
  // (FileSystem::WritesThrough), and it tells the stream when it turns out large.
  bool made = false;
  bool write_through = false;
  std::atomic<uint32_t> writes{0};
  std::atomic<bool> large{false};
  // The owners that set record or flock locks through this open file (under Inode::mu): their
  // locks go at its release. An OFD or flock lock's owner is the open file itself, and the kernel
  // sends no unlock of it when the file is closed.
  std::vector<LockOwner> lock_owners;
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
