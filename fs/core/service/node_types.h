// The values NodeService's operations take and return (fs/core/service/node_service.h): metadata
// updates, directory pages, invalidations, names made and granted, leases, chunk ranges, space.
//
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fs/core/placement/workspace.h"
#include "fs/store/metadata.h"

namespace bb::fs {

// Changes to apply to a metadata entry; unset fields stay as they are.
// The largest file size (off_t's largest value); an update past it is EFBIG.
inline constexpr uint64_t kMaxFileBytes = INT64_MAX;

struct MetaUpdate {
  std::optional<uint32_t> mode;
  std::optional<uint32_t> uid;
  std::optional<uint32_t> gid;
  std::optional<uint64_t> size;     // set exactly (truncate)
  std::optional<uint64_t> grow_to;  // size = max(size, grow_to) (published writes)
  std::optional<int64_t> atime_ns;
  std::optional<int64_t> mtime_ns;  // with grow_to: never moves mtime backwards
  std::optional<int64_t> ctime_ns;
  std::optional<uint32_t> data_location;
  // After grow_to: size += append — an O_APPEND write's range [size, size + append), handed out
  // by the metadata owner so that appends from different nodes never overlap.
  std::optional<uint64_t> append;
  // An entry of this directory was made, removed or renamed: mtime and ctime become at least
  // this (never earlier: DirChanges from several nodes arrive in any order).
  std::optional<int64_t> touch_ns;
  // Subdirectories made minus removed; the count never goes below 0.
  std::optional<int32_t> subdirs;
  // A link record's names made minus removed (never below 0), and a new link role (hard links:
  // fs/store/metadata.h).
  std::optional<int32_t> links;
  std::optional<LinkRole> link_role;
  // Applied only to the entry of this file that holds its attributes (its one name, or its link
  // record); ESTALE, changing nothing, for an entry of another file or a name of a linked one.
  std::optional<uint64_t> if_file_id;
  // alloc_end = max(alloc_end, alloc_to): fallocate reserved space up to here (fs/store/metadata.h).
  std::optional<uint64_t> alloc_to;
  // An extended attribute set to `value`, or removed without one; `flags`: XATTR_CREATE (EEXIST
  // when it is there) or XATTR_REPLACE (ENODATA when it is not).
  struct XattrChange {
    std::string name;
    std::optional<std::string> value;
    int flags = 0;
    bool operator==(const XattrChange&) const = default;
  };
  std::optional<XattrChange> xattr;
  bool operator==(const MetaUpdate&) const = default;
};

// Applies `u` to `md`, as the metadata owner does: set fields replace; `grow_to` grows the size
// and never moves mtime/ctime backwards; `append` then adds to the size; `touch_ns` and
// `subdirs` are a directory's entry changes (fs/core/coherence/dir_changes.h); `links` and `link_role`
// a hard link's.
void ApplyUpdate(const MetaUpdate& u, Metadata* md);
// What the owner refuses before it applies `u` to `md` (the entry at `path`): a size past the
// largest offset (EFBIG), an extended attribute change its flags or limits forbid (EEXIST, ENODATA,
// E2BIG, ENOSPC, ERANGE).
Status CheckUpdate(const MetaUpdate& u, const Metadata& md, const std::string& path);

struct DirEntry {
  std::string name;
  FileType type;
  uint64_t file_id;
};

struct DirPage {
  std::vector<DirEntry> entries;  // in bytewise name order
  bool end = false;               // no entries after the last one
};

// A page of a directory's entries with their attributes (ListAttrs).
struct DirAttrEntry {
  std::string name;
  Metadata md;
};
struct DirAttrPage {
  std::vector<DirAttrEntry> entries;  // in bytewise name order
  // Every entry this node holds up to `last` (inclusive) is in `entries` unless it changed while
  // the page was read; the next page starts after it.
  std::string last;
  bool end = false;  // no entries after `last`
};
// The most bytes of names and encoded entries one ListAttrs page carries (the transport's payload
// bound is 1 MiB; names are up to 255 bytes and a symlink's entry holds its target).
inline constexpr size_t kAttrPageBytes = 512 << 10;

// A batch of entries removed below a directory (PurgeTree).
struct PurgePage {
  std::vector<uint64_t> file_ids;  // regular files among the removed entries
  uint32_t removed = 0;            // entries removed, of every type
  bool more = false;               // entries below the directory remain
};

// What another node's kernel is to drop of `path` (fs/core/coherence/coherence.h): its name (`entry`: the
// name was removed, replaced or moved away), or its attributes and cached pages. A name that
// went on naming its file elsewhere carries where (`file_id` not 0): a rename's `moved_to`, or
// "" for a name of a linked file (it lives on at its link record), so that a node holding the
// file open follows it there and its writes go on.
struct Invalidation {
  Invalidation() = default;
  Invalidation(std::string path, bool entry, uint64_t file_id = 0, std::string moved_to = {})
      : path(std::move(path)), entry(entry), file_id(file_id), moved_to(std::move(moved_to)) {}
  std::string path;
  bool entry = false;
  uint64_t file_id = 0;
  std::string moved_to;
  bool operator==(const Invalidation&) const = default;
};

// An entry a node made without asking its owner, on a name the owner reserved for it
// (fs/core/creates/deferred_creates.h), as it goes to the owner: with a batch (MakeEntries), with the
// file's first write (WriteChunkAndUpdate), or handed over when the owner asks (HandOver;
// `in_flight`: a request carrying it is on its way too, and the owner then takes that one as
// its data and size only).
struct MadeEntry {
  std::string path;
  Metadata md;
  bool in_flight = false;
  bool operator==(const MadeEntry&) const = default;
};

// A reservation a node gives up (MakeEntries): the name and the grant the owner gave it.
struct NameGrant {
  std::string path;
  uint64_t grant = 0;
  bool operator==(const NameGrant&) const = default;
};

// What ReserveName found: the entry, or its absence — with the name reserved for the caller when
// `grant` is not 0.
struct NameLookup {
  std::optional<Metadata> entry;
  uint64_t grant = 0;
};

// A directory's names an owner gives one node for a while (LeaseDir): while the lease stands,
// only that node makes names of the directory at the owner, so every name of it the owner holds
// is in `names` or was made by that node. `grant` 0: refused.
struct DirLease {
  uint64_t grant = 0;
  std::vector<std::string> names;  // the directory's names held by the owner (none on a renewal)
  bool operator==(const DirLease&) const = default;
};

// One range of a chunk's bytes to write: WriteChunkRanges.
struct ChunkRange {
  uint64_t offset = 0;  // within the chunk
  std::span<const char> data;
};

struct SpaceStats {
  uint64_t block_size = 4096;
  uint64_t total_blocks = 0;
  uint64_t free_blocks = 0;
  uint64_t avail_blocks = 0;
};

}  // namespace bb::fs
