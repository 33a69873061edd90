// CoherentView: the local node's store as one caller sees it, through which the owner registers
// what the caller reads and tells the other nodes of what it changes (fs/core/coherence/coherence.h).
//
// Thread-safety: a view serves one request at a time; many views may serve at once.
#pragma once

#include <string>
#include <vector>

#include "fs/core/coherence/coherence.h"

namespace bb::fs {

// The local node's store as seen by one caller (see the file comment). `local` and
// `coherence` must outlive the view.
//
// It settles the names this node reserved for other nodes (NameReservations) before it serves a
// request that reads or changes one, makes one, or lists a directory holding one. A view made
// with `may_wait` false (for the transport's progress thread) never waits for that: a request
// that would answers EAGAIN at once, changing nothing, and must_wait() is then true (the request
// is to be served again on a handler thread).
class CoherentView final : public NodeService {
 public:
  CoherentView(NodeService* local, Coherence* coherence, NodeId caller, bool may_wait = true)
      : local_(local), c_(coherence), caller_(caller), may_wait_(may_wait) {}
  bool must_wait() const { return must_wait_; }

  Result<Metadata> GetMeta(const std::string& path) override;
  Result<NameLookup> ReserveName(const std::string& path) override;
  Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made,
                                       const std::vector<NameGrant>& released) override;
  Result<std::vector<MadeEntry>> HandOver(const std::vector<std::string>& paths) override {
    return c_->HandOver(paths, caller_);  // only its own names: a node asks for no other's
  }
  Result<DirLease> LeaseDir(const std::string& dir, uint64_t renew) override;
  Result<std::vector<MadeEntry>> HandOverDir(const std::string& dir) override { return c_->HandOverDir(dir, caller_); }
  Status CreateMeta(const std::string& path, const Metadata& md) override;
  Status PutMeta(const std::string& path, const Metadata& md) override;
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& update) override;
  Result<Metadata> RemoveMeta(const std::string& path) override;
  // The removal through this view: it tells as RemoveMeta does.
  Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) override {
    return RemoveMetaThenChunks(*this, path, file_id);
  }
  Result<Metadata> MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) override;
  // The removal through this view, telling where the file went.
  Result<Metadata> MoveOutMeta(const std::string& from, const std::string& to) override;
  Result<DirPage> ListDir(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    c_->names().SettleBelow(dir, Store());
    return local_->ListDir(dir, start_after, limit);
  }
  Result<DirAttrPage> ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) override;
  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    return local_->WriteChunk(file_id, chunk_size, index, offset, data);
  }
  Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                          std::span<const ChunkRange> ranges) override {
    return local_->WriteChunkRanges(file_id, chunk_size, index, ranges);
  }
  // The update (or the entry made) through this view: it registers and tells as UpdateMeta does,
  // and settles as MakeEntries does.
  Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                      uint64_t offset, std::span<const char> data,
                                                      const std::string& path, const MetaUpdate& update,
                                                      const std::optional<Metadata>& make) override {
    return WriteChunkThenUpdate(*this, file_id, chunk_size, index, offset, data, path, update, make);
  }
  Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                           std::span<char> buf) override {
    return local_->ReadChunk(file_id, chunk_size, index, offset, buf);
  }
  Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       uint64_t length) override {
    return local_->AllocateChunk(file_id, chunk_size, index, offset, length);
  }
  Status ZeroChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length,
                   bool allocate) override {
    return local_->ZeroChunk(file_id, chunk_size, index, offset, length, allocate);
  }
  Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return local_->TruncateChunks(file_id, size, chunk_size);
  }
  Status RemoveChunks(uint64_t file_id) override { return local_->RemoveChunks(file_id); }
  // A caller holds and drops its own locks only.
  Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test) override {
    RangeLock as_caller = want;
    as_caller.owner.node = caller_;
    return local_->Lock(file_id, as_caller, test);
  }
  // Only the locks the caller keeps: a node takes back its own.
  Result<HeldLockPage> HeldLocks(uint64_t after, uint32_t limit) override {
    return c_->HeldLocks(caller_, after, limit);
  }
  Status Sync(uint64_t file_id) override { return local_->Sync(file_id); }
  Result<SpaceStats> StatSpace() override { return local_->StatSpace(); }
  Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) override {
    return local_->PutWorkspace(name, spec, root);
  }
  Status DropWorkspace(const std::string& name) override;
  Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) override {
    c_->names().SettleBelow(dir, Store());
    return local_->PurgeTree(dir, limit);
  }
  Status RemoveFiles(const std::vector<uint64_t>& file_ids) override { return local_->RemoveFiles(file_ids); }
  Status Invalidate(const std::vector<Invalidation>& items) override;

 private:
  void Register(const std::string& path) {
    if (c_->Tracks(caller_, path)) c_->Register(path, caller_);
  }
  // Stores what a holder hands over (NameReservations::Store).
  NameReservations::Store Store() {
    return [this](NodeId holder, const MadeEntry& e) { StoreHandedOver(holder, e); };
  }
  void StoreHandedOver(NodeId holder, const MadeEntry& e);
  std::atomic<int64_t> refusing_until_{0};  // steady clock: the local store refused a hand-over till then
  // The file id of a linked file's name stored here at `path`, 0 for anything else: a change that
  // replaces the name tells it, so that a node holding the file open by that name follows it to
  // its record (FileSystem::Invalidated) instead of taking it for removed.
  uint64_t LinkedNameAt(const std::string& path) {
    auto md = local_->GetMeta(path);
    return md && md->link == LinkRole::kName ? md->file_id : 0;
  }
  // Settles `path` for a read or change (kRead); false (EAGAIN to answer) where it may not wait.
  bool SettleRead(const std::string& path);
  // Whether `path`'s directory is leased to the caller (NameReservations::Lease): a name of it
  // absent here may be one the caller made and has not sent yet.
  bool LeasedToCaller(const std::string& path) const {
    return c_->names().LeaseHolder(std::string(ParentPath(path))) == caller_;
  }
  // Runs `op`, a read or change of `path`; when it finds the name absent in a directory leased to
  // the caller, asks the caller for the name (it may have made it) and runs `op` again. Where it
  // may not wait, answers EAGAIN instead (must_wait()).
  template <typename Op>
  auto AskOwnIfAbsent(const std::string& path, Op op) -> decltype(op()) {
    auto r = op();
    if (r || r.error().code() != ENOENT || !LeasedToCaller(path)) return r;
    if (!may_wait_) {
      must_wait_ = true;
      return Status(EAGAIN, path + ": to be served where it may wait");
    }
    c_->names().SettleOwn(path, caller_, Store());
    return op();
  }
  // Before a make that replaces what is there (kRead), by the holder of the lease of `path`'s
  // directory, of a name absent here: the holder is asked for it.
  void SettleOwnLeased(const std::string& path);
  // Runs `make`, a write that makes `path`, once no reservation of it stands but the caller's
  // own (kMake), or none at all (kRead: a rename or a put, which replace what is there, so
  // even the caller's own is settled first); a reservation of the caller's ends once it is done.
  template <typename Make>
  auto Making(const std::string& path, NameReservations::Intent intent, Make make) {
    for (;;) {
      c_->names().Settle(path, caller_, intent, Store());
      if (intent == NameReservations::Intent::kRead) SettleOwnLeased(path);
      auto lock = c_->names().Lock(path);
      if (!c_->names().MayMake(path, caller_)) continue;
      auto result = make();
      c_->names().Made(path, caller_);
      return result;
    }
  }
  // One entry of MakeEntries.
  int MakeOne(const MadeEntry& e);

  NodeService* const local_;
  Coherence* const c_;
  const NodeId caller_;
  const bool may_wait_;
  bool must_wait_ = false;
};

// Whether an update changes what a kernel may hold of the entry (anything but a directory's
// entry changes: DirChanges' times and counts).
bool ChangesCachedAttributes(const MetaUpdate& u);

}  // namespace bb::fs
