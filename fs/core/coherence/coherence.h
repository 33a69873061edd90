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
// The requests of one caller reach the owner's store through a CoherentView
// (coherent_view.h), which registers the caller for what it reads (CallbackTable,
// callback_table.h) and tells the others of what it changes; the owner's own file system uses a
// view as itself, the node server one per request as the caller the transport names.
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
#include "fs/core/coherence/callback_table.h"
#include "fs/core/creates/name_reservations.h"
#include "fs/core/placement/path.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

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

}  // namespace bb::fs
