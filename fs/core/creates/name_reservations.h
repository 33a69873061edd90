// NameReservations: the names a metadata owner reserved for other nodes about to make them
// without asking (fs/core/creates/deferred_creates.h), and what the owner does before anyone else reads,
// makes or changes such a name, or lists its directory: it asks the holder for the name back
// (NodeService::HandOver, "settling" it), stores the entry the holder made there, if any, and
// ends the reservation. So a file made on a reserved name is seen by every node once its create
// returned, and two nodes never both make one name (O_EXCL holds across nodes).
//
// A name is reserved for the node whose lookup found it absent (NodeService::ReserveName), and
// only when that node asked for it; the reservation ends when the holder makes the name here
// (Made), gives it up (Release), or is asked for it back. A hand-over that names an entry still
// on its way to this node in a request of the holder's (MadeEntry::in_flight) stores it at once,
// and the request, when it comes, finds it stored (HandedOver) and brings only its data.
//
// A directory may be leased whole to one node (Lease; fs/core/creates/dir_leases.h): while the lease
// stands, that node takes every name of the directory it does not know of as absent and reserved
// for it, without asking. So anyone else's read, make or change of a name of the directory, or a
// listing of it or above it, first asks the holder for the lease back (NodeService::HandOverDir),
// stores the entries it made there, and ends the lease; the holder's own read of a name absent
// here asks it for that name alone (SettleOwn).
//
// Thread-safety: every method may be called concurrently. Settling waits, without a lock, for the
// holder's answer; requests for a name being settled wait for it (bounded by the call's
// deadline). Lock order: Lock(path) before the store's own locks; the table's own mutex is held
// only briefly and never across a call.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fs/base/clock.h"
#include "fs/base/status.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

class NameReservations {
 public:
  // Asks `holder` for `paths` back (its NodeService::HandOver).
  using Recall = std::function<Result<std::vector<MadeEntry>>(NodeId holder, const std::vector<std::string>& paths)>;
  // Stores an entry `holder` made and handed over (in the owner's store, registering the holder).
  using Store = std::function<void(NodeId holder, const MadeEntry& entry)>;
  // Asks `holder` for its lease of directory `dir` back (its NodeService::HandOverDir).
  using RecallDir = std::function<Result<std::vector<MadeEntry>>(NodeId holder, const std::string& dir)>;
  // Lists the names a directory holds here: at most `limit`.
  using ListNames = std::function<Result<std::vector<std::string>>(uint32_t limit)>;

  // `clock` must outlive this. Without `recall_dir` no directory is leased.
  NameReservations(Recall recall, const Clock* clock, RecallDir recall_dir = nullptr)
      : recall_(std::move(recall)),
        recall_dir_(std::move(recall_dir)),
        clock_(clock),
        // Grants of a restarted owner are not those it gave before (a holder renews by its grant).
        next_grant_(static_cast<uint64_t>(std::max<int64_t>(1, clock->WallNs()))) {}
  NameReservations(const NameReservations&) = delete;
  NameReservations& operator=(const NameReservations&) = delete;

  // What the caller is about to do with a name, which decides what its own reservation means.
  enum class Intent {
    kRead,     // read or change it: even its own reservation is settled (it may have made the name)
    kMake,     // make it: its own reservation ends with the make (Made)
    kReserve,  // ask for it: its own reservation is given again (it forgot the old one)
  };
  // Returns once no reservation of `path` stands that `caller` must wait for: another node's (or,
  // for kRead, its own) is settled, with `store` storing what the holder made; one being settled
  // is waited for. A holder that cannot be reached has made nothing that counts.
  void Settle(const std::string& path, NodeId caller, Intent intent, const Store& store);
  // The same for every reservation of a name below directory `dir` (any depth), whoever holds
  // it, as they were when the call began (names reserved meanwhile are left: a listing that runs
  // with a create is not ordered with it).
  void SettleBelow(const std::string& dir, const Store& store);
  // Whether Settle / SettleBelow would ask a node or wait (the transport's progress thread must
  // not: it then serves the request on a handler thread).
  bool MustSettle(const std::string& path, NodeId caller, Intent intent) const;
  bool MustSettleBelow(const std::string& dir) const;

  // Serializes deciding a name's fate: the check that it is absent before it is reserved, and a
  // write that makes it. MayMake, Made and Reserve only under it.
  std::unique_lock<std::mutex> Lock(const std::string& path) { return std::unique_lock(stripes_[Stripe(path)]); }
  // The same without waiting; the lock is not owned when another holds it.
  std::unique_lock<std::mutex> TryLock(const std::string& path) {
    return std::unique_lock(stripes_[Stripe(path)], std::try_to_lock);
  }
  // REQUIRES Lock(path). True when `caller` may make `path` now: no other node holds it and it is
  // not being settled. False: Settle again first.
  bool MayMake(const std::string& path, NodeId caller) const;
  // REQUIRES Lock(path), held since MayMake. `caller` stored what it made at `path`: its own
  // reservation ends (only now: until the entry is there, a reader that takes no lock must find
  // the reservation, and settle it).
  void Made(const std::string& path, NodeId caller);
  // REQUIRES Lock(path), MayMake(path, holder) and the name absent. Reserves `path` for
  // `holder`; returns its grant (never 0), which replaces an earlier one of the same holder.
  uint64_t Reserve(const std::string& path, NodeId holder);
  // `holder` gives up grant `grant` of `path` (nothing when a later grant replaced it, or the name
  // is being settled: the hand-over ends it).
  void Release(const std::string& path, NodeId holder, uint64_t grant);
  // REQUIRES Lock(path). A request of `holder` carrying its entry of `path` for file `file_id`
  // arrived: true (once) when a hand-over stored that entry while the request was on its way.
  bool HandedOver(const std::string& path, NodeId holder, uint64_t file_id);

  // Leases directory `dir` to `holder` (see the file comment), or renews its grant `renew`.
  // Refused (grant 0): another node's lease or reservation below `dir` stands, or `dir` holds
  // more than kMaxLeaseNames names here (`list` lists them). With kMaxLeases held, the oldest is
  // asked back first (`store` storing what its holder made). Waits for every make under way here
  // (it takes every stripe).
  Result<DirLease> Lease(const std::string& dir, NodeId holder, uint64_t renew, const ListNames& list,
                         const Store& store);
  // Who holds the lease of `dir` (kNoHolder: nobody).
  static constexpr NodeId kNoHolder = ~NodeId{0};
  NodeId LeaseHolder(const std::string& dir) const;
  // Asks `holder` for the one name `path` of a directory leased to it (a read of its own that
  // found the name absent here: it may have made it), storing what it made.
  void SettleOwn(const std::string& path, NodeId holder, const Store& store);
  static constexpr size_t kMaxLeases = 4096;
  static constexpr uint32_t kMaxLeaseNames = 1024;

  struct Counters {
    uint64_t granted = 0;        // reservations given
    uint64_t settled = 0;        // reservations settled (their holders asked)
    uint64_t handed_over = 0;    // entries stored from hand-overs
    uint64_t recall_failed = 0;  // hand-overs the holder did not answer
    uint64_t held = 0;           // reservations standing now
    uint64_t leased = 0;         // directory leases given
    uint64_t lease_recalls = 0;  // leases asked back
    uint64_t leases_held = 0;    // leases standing now
  };
  Counters counters() const;

  // Markers of entries stored from a hand-over while their own request was on its way are
  // dropped after this long unclaimed (the request was lost with its node).
  static constexpr int64_t kHandedOverKeepNs = 120'000'000'000;

 private:
  struct Reservation {
    NodeId holder = 0;
    uint64_t grant = 0;
    bool settling = false;
  };
  struct Stored {
    NodeId holder = 0;
    uint64_t file_id = 0;
    int64_t at_ns = 0;
  };
  struct Leased {
    NodeId holder = 0;
    uint64_t grant = 0;
    bool settling = false;
  };
  static size_t Stripe(const std::string& path);
  // REQUIRES mu_. The lease `path`'s directory is under, when another than `caller` holds it or
  // it is being settled (`path` must wait for it).
  const std::pair<const std::string, Leased>* BlockingLeaseLocked(const std::string& path, NodeId caller) const;
  // REQUIRES lock on mu_. Asks the lease's holder for it back and ends it (`lock` released
  // meanwhile, held again after).
  void RecallLease(std::unique_lock<std::mutex>& lock, const std::string& dir, const Store& store);
  // REQUIRES mu_. Whether a lease may be given to `holder` for `dir` now (nothing of another's
  // below it); renewals are answered by the caller.
  bool MayLeaseLocked(const std::string& dir, NodeId holder) const;
  // Stores what `holder` handed over (`made`, or nothing when it did not answer) and counts it;
  // in-flight entries are marked (HandedOver). REQUIRES mu_ not held.
  void StoreHanded(NodeId holder, const Result<std::vector<MadeEntry>>& made, const Store& store);
  // REQUIRES mu_. Publishes size_ after table_ or stored_ changed.
  void StoreSizeLocked();
  // Asks the holders of leases of `dir` and below for them back (SettleBelow).
  void SettleLeasesBelow(const std::string& dir, const Store& store);
  // Asks each holder for its reserved `paths` (marked settling), stores what they made, and ends
  // the reservations.
  void SettleMarked(const std::map<NodeId, std::vector<std::string>>& by_holder, const Store& store);
  bool MustSettleLocked(const std::string& path, NodeId caller, Intent intent) const;

  const Recall recall_;
  const RecallDir recall_dir_;
  const Clock* const clock_;
  static constexpr size_t kStripes = 64;
  std::array<std::mutex, kStripes> stripes_;

  mutable std::mutex mu_;            // guards table_, stored_, next_grant_ and the counters
  std::condition_variable settled_;  // with mu_: a settling ended
  // Ordered by path, so that the names below a directory are one range.
  std::map<std::string, Reservation> table_;
  std::map<std::string, Stored> stored_;  // handed over while in flight, by path
  std::map<std::string, Leased> leases_;  // by directory
  std::atomic<size_t> size_{0};           // table_, stored_ and leases_ sizes, read without the lock
  uint64_t next_grant_;
  Counters counters_;
};

}  // namespace bb::fs
