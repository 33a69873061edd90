// NodeService: what one node serves to the file system core — its share of the metadata and of
// the chunks. The core reaches the local node through LocalNodeService (a direct call) and a
// remote node through a transport proxy with the same interface, so a request for the local
// node never becomes an RPC.
//
// All arguments and results are values (no pointers into the callee; node_types.h has them), so
// every call can be carried over the wire unchanged.
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
#include "fs/core/service/node_types.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"
#include "fs/store/metadata.h"
#include "fs/store/space_guard.h"

namespace bb::fs {

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
