// Coherence of the kernels' caches across nodes: callbacks, as AFS keeps them.
//
// Every node's kernel may cache entries and attributes for `cache_timeout` seconds. The
// metadata owner of a path remembers which nodes read it lately (CallbackTable: a node that
// read it within the hold, which is at least the kernel's timeout). When an entry changes, the
// owner tells each of those nodes, except the one that made the change, and waits for them
// before the change is acknowledged; a told node invalidates what its kernel holds
// (fuse_lowlevel_notify_inval_entry / _inode) and forgets nothing else. So once a call that
// changed a name or an attribute returns on one node, no other node's kernel answers from the
// old state — but for a node whose kernel is held up by a call of its own in the same
// directory or file, or takes longer than kKernelWait: it drops what it holds right after
// (ToKernel). A node holding a file open reads its name again every half timeout
// (FileSystem::RenewOpenCallbacks), so that it stays registered however long the file is open.
//
// What is told (see CoherentView): a removed, replaced or moved name (the entry: the kernel
// drops the name, and below it for a directory), and changed attributes of an entry (the
// inode: the kernel drops its attributes and cached pages). What is not: a new name (the kernel
// caches no negative entries), and a directory's times and link count moved by entries made or
// removed in it (DirChanges): those are seen within the timeout.
//
// The requests of one caller reach the owner's store through a CoherentView, which registers
// the caller for what it reads and tells the others of what it changes; the owner's own file
// system uses a view as itself, the node server one per request as the caller the transport
// names.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fs/base/clock.h"
#include "fs/core/creates/name_reservations.h"
#include "fs/core/placement/path.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

// Which nodes read a path lately. A registration lives at least `hold_ns` (two generations of
// that length) unless the table is full: past `capacity` registrations the older generation is
// given up early and its holders are to be told to drop what they hold of it (NextBreak), as an
// AFS server breaks callbacks to make room. Until they were told (DoneBreak), a change still
// finds them (Take). A hold of 0 keeps nothing (the kernels cache nothing).
class CallbackTable {
 public:
  struct Holder {
    NodeId node = 0;
    // Its kernel may hold the path's attributes, not only its entry: told of changed attributes,
    // a holder drops them and keeps the entry, so it stays registered for a change of the name.
    bool attrs = true;
    bool operator==(const Holder&) const = default;
  };
  using Generation = std::unordered_map<std::string, std::vector<Holder>>;

  CallbackTable(int64_t hold_ns, const Clock* clock, size_t capacity = SIZE_MAX)
      : hold_ns_(hold_ns), capacity_(capacity), clock_(clock), rotated_ns_(clock->MonotonicNs()) {}
  // True when this registration filled the table and a generation was given up (NextBreak).
  bool Register(const std::string& path, NodeId holder);
  // The nodes to tell of a change of `path` (`entry`: its name, else its attributes), other
  // than `except`, whose registration stays. Told of the name, a node's registration ends; told
  // of the attributes, it stays for the name only (a node that holds only the name is not told
  // of attributes).
  std::vector<NodeId> Take(const std::string& path, NodeId except, bool entry);
  // Up to `max` registrations given up for room and not yet told, oldest generation first
  // (empty: none); DoneBreak once their holders were told. Until then Take still finds them.
  Generation NextBreak(size_t max);
  bool HasBreak() const;
  void DoneBreak();
  size_t size() const;  // registrations held, those given up and not yet told included
  bool active() const { return hold_ns_ > 0; }

 private:
  void RotateLocked(int64_t now);

  const int64_t hold_ns_;
  const size_t capacity_;
  const Clock* const clock_;
  mutable std::mutex mu_;
  Generation current_;
  Generation previous_;
  std::deque<Generation> breaking_;  // given up for room, oldest first
  Generation telling_;               // the slice of them being told now (NextBreak)
  int64_t rotated_ns_;
};

// What a node's kernel is told to drop (the adapter resolves the path to its inodes).
using KernelInvalidator = std::function<void(const std::vector<Invalidation>&)>;

// The inodes on which this node has a FUSE call in flight that holds a lock the kernel needs to
// drop what it caches of them (KernelHooks::held): a directory in which a name is made, removed
// or renamed (the directory's lock), a file being read or written (its pages' locks); from
// before QoS admits the call until its reply went. Counted in a fixed table of slots, without a
// lock: two inodes may share a slot, which costs only a wait not made.
class KernelCallsInFlight {
 public:
  // Counts its inode as held while it, or any copy of it, lives.
  class Hold {
   public:
    explicit Hold(std::atomic<uint32_t>* slot) : slot_(slot) { slot_->fetch_add(1); }
    Hold(const Hold& other) : Hold(other.slot_) {}
    Hold& operator=(const Hold&) = delete;
    ~Hold() { slot_->fetch_sub(1); }

   private:
    std::atomic<uint32_t>* slot_;
  };
  Hold Of(uint64_t ino) { return Hold(&slots_[Slot(ino)]); }
  bool Holds(uint64_t ino) const { return slots_[Slot(ino)].load() != 0; }

 private:
  static constexpr int kBits = 12;
  static size_t Slot(uint64_t ino) { return static_cast<size_t>((ino * 0x9E3779B97F4A7C15ull) >> (64 - kBits)); }
  std::array<std::atomic<uint32_t>, size_t{1} << kBits> slots_{};
};

// How a node drops what it caches of changed paths (Coherence::ToKernel).
struct KernelHooks {
  // Drops the daemon's own copies, before the kernel is told (what it asks next is read afresh).
  // Must not wait.
  KernelInvalidator forget;
  // Drops what the kernel holds; may wait for the kernel's locks.
  KernelInvalidator drop;
  // Whether `drop` would wait for a call of this node's own in flight (KernelCallsInFlight:
  // its kernel holds the lock until the daemon answers the call). Empty: never.
  std::function<bool(const std::vector<Invalidation>&)> held;
};

struct CoherenceStats {
  std::atomic<uint64_t> sent{0};      // invalidations sent to other nodes
  std::atomic<uint64_t> failed{0};    // of those, not confirmed (the node did not answer in time)
  std::atomic<uint64_t> received{0};  // invalidations this node's kernel was told
  std::atomic<uint64_t> broken{0};    // registrations given up for room, their holders told
  std::atomic<uint64_t> owed{0};      // invalidations waiting for a node that did not answer
  // Of `received`, those acknowledged before this node's kernel took them (Coherence::ToKernel).
  std::atomic<uint64_t> deferred{0};
};

// An invalidation that drops everything a node's kernel and caches hold (a node that missed
// more invalidations than are kept for it).
inline const Invalidation kDropEverything{"/", true};

// One per daemon: the callback table of the paths it owns, how to reach the other nodes, and
// its own kernel.
class Coherence {
 public:
  // `peers(n)` reaches node n (n != self) without a view; `hold_ns` and `capacity` as in
  // CallbackTable. `node_private(path)`: no other node can reach the path (mode 1), so nobody
  // registers for it; null: every path is shared. A thread of its own tells the holders of
  // registrations given up for room and tries again the invalidations a node did not answer,
  // every `catchup_every` (0: no thread; the owner calls Catchup).
  using PathTest = std::function<bool(const std::string&)>;
  Coherence(NodeView view, int64_t hold_ns, const Clock* clock, NodeResolver peers, PathTest node_private = nullptr,
            size_t capacity = SIZE_MAX, std::chrono::milliseconds catchup_every = std::chrono::seconds(1));
  ~Coherence();
  Coherence(const Coherence&) = delete;
  Coherence& operator=(const Coherence&) = delete;
  // The adapter's, once the FUSE session is up (before: nothing is cached to drop); empty
  // before the session goes. Returns once no call of the previous one runs.
  void SetKernel(KernelHooks kernel);
  void SetKernel(KernelInvalidator drop) { SetKernel(KernelHooks{nullptr, std::move(drop), nullptr}); }
  // The same, giving up after `deadline` while the kernel is still being told: false then, with
  // the hooks unchanged. At shutdown the notifier may wait in the kernel for a lock that a
  // process holds while its request waits, unread, in a session that reads no more; the daemon
  // then aborts the connection (which answers that request) and calls SetKernel again.
  bool SetKernel(KernelHooks kernel, std::chrono::milliseconds deadline);
  // Drops `items` from this node's caches: the daemon's at once (`forget`), the kernel's
  // through the notifier thread. Returns once the kernel took them too, or with them still
  // queued (counted: `deferred`) — at once when `held` says a call of this node's own holds
  // a lock the kernel needs, else after `wait`. The kernel takes a directory's lock to drop a
  // name in it, and a file's page locks to drop its pages, and this node's own create or
  // unlink in that directory, or write of that file, holds them until its daemon answers,
  // which may wait for the very change being told here (a cycle through two nodes). Queued
  // items reach the kernel as soon as that call is answered. While the notifier has been held
  // up kKernelWait already, returns at once. A `wait` longer than kKernelWait (a command that
  // must not return before the kernel dropped everything) waits for the kernel regardless.
  void ToKernel(const std::vector<Invalidation>& items, std::chrono::milliseconds wait = kKernelWait);
  static constexpr std::chrono::milliseconds kKernelWait{25};
  // Invalidations queued for a held-up kernel, at most; past it they become kDropEverything.
  static constexpr size_t kMaxKernelQueue = 1 << 16;
  // Tells every node registered for the items' paths except `caller`; returns once each
  // answered or failed. A node that did not answer is owed what it missed: it is told again
  // (Catchup) until it answers, and meanwhile new invalidations for it wait with the owed ones
  // instead of waiting for its deadline; past kMaxOwed it is owed kDropEverything instead.
  void Tell(const std::vector<Invalidation>& items, NodeId caller);
  // This node starts (again): it holds no registrations of who read the names it owns, so every
  // other node drops all its kernel caches (kDropEverything) — before this node serves a change,
  // which it could not tell them of. A node that does not answer is owed it, as in Tell.
  void DropEverywhere();
  // What the thread does: tells the holders of registrations given up for room, then the nodes
  // owed invalidations. Tests call it themselves.
  void Catchup();
  // Stops the threads (waiting for what they are doing); call before what `peers` reaches goes.
  void Stop();
  static constexpr size_t kMaxOwed = 4096;
  CallbackTable& table() { return table_; }
  // Registers `holder` for `path` (CallbackTable::Register), waking the thread when that gave
  // registrations up.
  void Register(const std::string& path, NodeId holder) {
    if (table_.Register(path, holder)) Nudge();
  }
  NodeId self() const { return view_.self; }
  NodeId nodes() const { return view_.nodes; }
  // Whether a read of `path` by `caller` is registered: callers that are nodes of the cluster
  // (a tool's requests register nothing), paths other nodes can reach.
  bool Tracks(NodeId caller, const std::string& path) const {
    return table_.active() && caller < view_.nodes && !(node_private_ && node_private_(path));
  }
  const CoherenceStats& stats() const { return stats_; }

  // The names this node reserved for others (ReserveName), which every CoherentView settles.
  NameReservations& names() { return names_; }
  // What this node made on names other owners reserved for it (its DeferredCreates), which it
  // hands over when their owner asks (NodeService::HandOver; only what `owner` reserved). Set
  // once the file system is up, and empty before it goes; returns once no call of the previous
  // one runs.
  // The same for the lease of a directory (NodeService::HandOverDir). And what this node holds
  // of an owner that had it drop everything (it started again: the reservations and leases it
  // gave are gone), which this node forgets.
  using HandOverHook = std::function<std::vector<MadeEntry>(const std::vector<std::string>& paths, NodeId owner)>;
  using HandOverDirHook = std::function<std::vector<MadeEntry>(const std::string& dir, NodeId owner)>;
  // And the locks this node's processes hold that a node keeps (NodeService::HeldLocks).
  using OwnerResetHook = std::function<void(NodeId owner)>;
  using HeldLocksHook = std::function<HeldLockPage(NodeId keeper, uint64_t after, uint32_t limit)>;
  void SetHandOver(HandOverHook hook, HandOverDirHook dir_hook = nullptr, OwnerResetHook reset_hook = nullptr,
                   HeldLocksHook held_hook = nullptr);
  std::vector<MadeEntry> HandOver(const std::vector<std::string>& paths, NodeId owner);
  std::vector<MadeEntry> HandOverDir(const std::string& dir, NodeId owner);
  void OwnerReset(NodeId owner);
  HeldLockPage HeldLocks(NodeId keeper, uint64_t after, uint32_t limit);

 private:
  // Sends `list` to `node` (its kernel, for this node); on failure the node owes them.
  void TellNode(NodeId node, std::vector<Invalidation> list);
  // Sends `list` to another node, in batches, and waits for its answers.
  Status SendTo(NodeId node, const std::vector<Invalidation>& list);
  // REQUIRES owed_mu_. Adds `list` to what `node` is owed.
  void OweLocked(NodeId node, std::vector<Invalidation> list);
  // Wakes the thread when registrations wait to be given up.
  void Nudge();
  // The notifier thread's loop: hands what is queued to the kernel, oldest first.
  void NotifyLoop();

  const NodeView view_;
  CallbackTable table_;
  const NodeResolver peers_;
  const PathTest node_private_;
  std::shared_timed_mutex kernel_mu_;  // shared while the kernel is told
  KernelHooks kernel_;
  std::mutex notify_mu_;               // guards the notifier's queue and state below
  std::condition_variable notify_cv_;  // wakes the notifier
  std::condition_variable told_cv_;    // wakes ToKernel's waiters
  std::vector<Invalidation> notify_queue_;
  uint64_t notify_queued_ = 0;                                              // batches queued so far
  uint64_t notify_done_ = 0;                                                // of those, handed to the kernel
  std::optional<std::chrono::steady_clock::time_point> notify_busy_since_;  // while the kernel has a batch
  bool notify_stop_ = false;
  CoherenceStats stats_;
  std::mutex owed_mu_;  // guards owed_, stop_
  std::condition_variable owed_cv_;
  std::unordered_map<NodeId, std::vector<Invalidation>> owed_;  // nodes that did not answer
  bool stop_ = false;
  bool wake_ = false;  // a break waits: the thread runs Catchup at once
  NameReservations names_;
  std::shared_mutex hand_over_mu_;  // shared while hand_over_ runs
  HandOverHook hand_over_;
  HandOverDirHook hand_over_dir_;
  OwnerResetHook owner_reset_;
  HeldLocksHook held_locks_;
  std::thread catchup_;  // started once everything above is
  std::thread notifier_;
};

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
