// NodeService: what one node serves to the file system core — its share of the metadata and of
// the chunks. The core reaches the local node through LocalNodeService (a direct call) and a
// remote node through a transport proxy with the same interface, so a request for the local
// node never becomes an RPC.
//
// All arguments and results are values (no pointers into the callee), so every call can be
// carried over the wire unchanged.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fs/base/status.h"
#include "fs/core/locks/range_locks.h"
#include "fs/core/observe/stats.h"
#include "fs/core/placement/workspace.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"
#include "fs/store/metadata.h"
#include "fs/store/space_guard.h"

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

class NodeService {
 public:
  virtual ~NodeService() = default;

  // Metadata of `path`; ENOENT when absent.
  virtual Result<Metadata> GetMeta(const std::string& path) = 0;
  // GetMeta, but an absent name is not ENOENT: it is reserved for the caller, who may then make
  // it without asking (fs/core/creates/deferred_creates.h) until it makes it here, gives it up
  // (MakeEntries) or is asked for it back (HandOver), which the owner does before anyone else
  // reads or changes the name or lists its directory. Through a CoherentView the caller is the
  // node it serves; the bare local service reserves nothing, and its grant 1 says only that the
  // name could be reserved (there is room for its entry).
  virtual Result<NameLookup> ReserveName(const std::string& path) = 0;
  // Stores a new entry; EEXIST when `path` exists; ENOSPC when the store is full.
  virtual Status CreateMeta(const std::string& path, const Metadata& md) = 0;
  // Stores `md` at `path`, replacing any entry there.
  virtual Status PutMeta(const std::string& path, const Metadata& md) = 0;
  // Applies `update` and returns the entry as stored afterwards; ENOENT when absent.
  virtual Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& update) = 0;
  // Removes the entry and returns what it held; ENOENT when absent.
  virtual Result<Metadata> RemoveMeta(const std::string& path) = 0;
  // RemoveMeta, then — when the entry was file `file_id`'s one ordinary name and its data fits
  // its first chunk (size <= chunk size) — this node's chunks of it, in one request to a node
  // that holds both (where the mode keeps a file's first chunk with its entry). Returns the entry
  // and whether its chunks went; RemoveMeta's errors.
  struct Removed {
    Metadata entry;
    bool data_gone = false;
  };
  virtual Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) = 0;
  // Atomically moves the entry at `from` to `to` (both held by this node), replacing any entry
  // at `to`; its change time becomes `ctime_ns` when that is later (a rename changes it, as on
  // local file systems). Returns the moved entry; ENOENT when `from` is absent.
  virtual Result<Metadata> MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) = 0;
  // RemoveMeta of `from`, whose entry a rename has put at `to` on another node (the nodes that
  // read `from` learn where its file went).
  virtual Result<Metadata> MoveOutMeta(const std::string& from, const std::string& to) = 0;
  // Up to `limit` entries of directory `dir` held by this node whose names sort after
  // `start_after` ("" = from the first).
  virtual Result<DirPage> ListDir(const std::string& dir, const std::string& start_after, uint32_t limit) = 0;
  // As ListDir, each entry with its metadata, and at most kAttrPageBytes of them (the page then
  // ends before `limit`, `end` false). Through a CoherentView the caller is registered for every
  // entry listed, as for GetMeta (fs/core/coherence/coherence.h).
  virtual Result<DirAttrPage> ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) = 0;

  // Stores the entries the caller made on names reserved for it (each as CreateMeta would; an
  // entry of the same file already there counts as made), and ends the reservations in
  // `released`. Returns one errno per entry (0: made; EEXIST: the name holds another file).
  virtual Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made,
                                               const std::vector<NameGrant>& released) = 0;
  // The owner of names reserved for this node asks for them back: returns the entries this node
  // made on them, and this node gives up the rest.
  virtual Result<std::vector<MadeEntry>> HandOver(const std::vector<std::string>& paths) = 0;
  // Leases directory `dir`'s names held here to the caller (fs/core/creates/dir_leases.h): until the
  // owner asks for it back (HandOverDir), which it does before anyone else reads, makes or changes
  // a name of `dir` or lists it, the caller takes a name it does not know of as absent and
  // reserved for it. `renew`: the grant the caller holds, extended without its names when it
  // still stands. Through a CoherentView only; others lease nothing.
  virtual Result<DirLease> LeaseDir(const std::string& dir, uint64_t renew) {
    (void)dir;
    (void)renew;
    return DirLease{};
  }
  // The owner of directory `dir`'s names asks for its lease back: returns the entries this node
  // made on them (as HandOver), and this node gives up the lease and the names it took by it.
  virtual Result<std::vector<MadeEntry>> HandOverDir(const std::string& dir) {
    (void)dir;
    return std::vector<MadeEntry>{};
  }

  // Chunk data, as in ChunkStore: `chunk_size` is the file's (Metadata::chunk_size).
  virtual Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                            std::span<const char> data) = 0;
  // WriteChunk of every range, in order, in one request (the pieces of one chunk that writes
  // behind gathered while it was on its way, write_behind.h). Stops at the first error; ranges
  // before it may have been written (writing them all again is harmless).
  virtual Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                  std::span<const ChunkRange> ranges) = 0;
  // WriteChunk, then UpdateMeta(path, update) — in one request to a node that holds both the
  // chunk and the entry (a small file's data and its size). REQUIRES: update.if_file_id. Returns
  // the entry after the update, or nullopt when the data was written but the entry not updated
  // (another file's, a name, absent, or the update failed: the caller publishes the usual way);
  // the write's error otherwise (nothing updated). With `make` (an entry the caller made on a
  // name reserved for it, MakeEntries), the entry is made as `make` with `update` applied, and
  // the chunk written first; EEXIST (nothing written) when the name holds another file.
  virtual Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                              uint64_t offset, std::span<const char> data,
                                                              const std::string& path, const MetaUpdate& update,
                                                              const std::optional<Metadata>& make = std::nullopt) = 0;
  // Bytes filled at `offset` of the chunk (short or 0 = hole; the caller zero-fills).
  virtual Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                                   std::span<char> buf) = 0;
  virtual Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                               uint64_t length) = 0;
  // Makes the range of the chunk read as zeros (ChunkStore::Zero); with `allocate`, its space is
  // then reserved too (fallocate's ZERO_RANGE as against PUNCH_HOLE).
  virtual Status ZeroChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length,
                           bool allocate) = 0;
  virtual Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) = 0;
  // Record locks of file `file_id` (fcntl; range_locks.h), which this node holds for the
  // cluster, in memory. `test`: the lock `want` conflicts with (F_GETLK). Else sets `want` (or
  // unlocks its range) unless another owner's lock conflicts: that lock comes back, and nothing
  // changed. A view as a caller (CoherentView) takes the owner's node to be the caller.
  virtual Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test) = 0;
  // The locks this node's processes hold that the caller keeps for the cluster, asked by a caller
  // whose daemon started again and lost them (RecoverLocks): of files after `after` in file id
  // order, a page of `limit` locks or a few more (a file's locks come together). The bare local
  // service holds none; a CoherentView answers for its node's file system (HeldLocks).
  virtual Result<HeldLockPage> HeldLocks(uint64_t after, uint32_t limit) {
    (void)after;
    (void)limit;
    return HeldLockPage{};
  }
  virtual Status RemoveChunks(uint64_t file_id) = 0;
  // Makes this node's chunks of the file and all of its metadata writes durable.
  virtual Status Sync(uint64_t file_id) = 0;
  virtual Result<SpaceStats> StatSpace() = 0;

  // Workspaces (fs/core/placement/workspace.h). Stores the record of workspace `name` and its root entry
  // /name in one atomic write, and routes the workspace from then on. OK when the same record
  // is there already; EEXIST when /name is another entry or the workspace has another layout.
  virtual Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) = 0;
  // Removes the record and the root entry of workspace `name` (OK when absent).
  virtual Status DropWorkspace(const std::string& name) = 0;
  // Removes up to `limit` entries this node holds below directory `dir`, at any depth.
  virtual Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) = 0;
  // Removes whatever chunks this node holds of each file.
  virtual Status RemoveFiles(const std::vector<uint64_t>& file_ids) = 0;

  // Cache coherence (fs/core/coherence/coherence.h): this node's kernel drops `items`, and the call
  // returns once it did. The bare local service holds no kernel (OK, nothing done); a
  // CoherentView passes them to its node's kernel.
  virtual Status Invalidate(const std::vector<Invalidation>& items) = 0;
};

// WriteChunkAndUpdate as `s`'s own WriteChunk and UpdateMeta, one after the other (what the
// services that hold both do); with `make`, WriteChunk then MakeEntries (the update applied to
// the entry), the chunk removed again when the entry was refused.
Result<std::optional<Metadata>> WriteChunkThenUpdate(NodeService& s, uint64_t file_id, uint64_t chunk_size,
                                                     uint64_t index, uint64_t offset, std::span<const char> data,
                                                     const std::string& path, const MetaUpdate& update,
                                                     const std::optional<Metadata>& make = std::nullopt);

// RemoveFile as `s`'s own RemoveMeta and RemoveChunks, one after the other.
Result<NodeService::Removed> RemoveMetaThenChunks(NodeService& s, const std::string& path, uint64_t file_id);

// Reaches node n's service.
using NodeResolver = std::function<NodeService*(NodeId)>;

struct LocalNodeOptions {
  std::string root;                       // backing directory (for statfs); may be empty for tests
  uint64_t reserve_bytes = 0;             // metadata writes fail with ENOSPC below this much free
  WorkspaceRouter* workspaces = nullptr;  // told of workspaces put and dropped; may be null
  NodeStats* stats = nullptr;             // counts what is served; may be null
  LockTables* locks = nullptr;            // the locks kept for the cluster; null: the service's own
};

// Serves this node's stores directly. `meta` and `chunks` must outlive the service.
std::unique_ptr<NodeService> NewLocalNodeService(MetaStore* meta, ChunkStore* chunks, LocalNodeOptions options);

}  // namespace bb::fs
