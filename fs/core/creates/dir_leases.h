// DirLeases: the directories whose names their owners leased to this node (NodeService::LeaseDir,
// fs/core/creates/name_reservations.h), so that a process making files one after another in a directory
// (CreateStreams) finds each new name absent, and reserved for it, without asking its owner: the
// lookup the kernel sends before a create is answered here, and the file is made here
// (DeferredCreates), its entry going to its owner in the next batch.
//
// A lease is of one directory's names at one owner. While it stands, only this node makes names
// of the directory there: anyone else's read, make or change of one, or a listing, first asks
// this node for the lease back (HandOverDir), which hands over what it made and ends the lease.
// So a name of the directory is absent at the owner unless it was there when the lease was given
// (the grant lists them) or this node made it since. This node keeps both as the lease's known
// names; a lookup of a known name asks the owner as usual.
//
// Every make of this node in a directory goes through Make, held until its answer came (or did
// not): its name is known from the moment it may reach the owner. A lease is asked for only while
// no make of this node in the directory is under way (the owner's list could miss one), and is
// used kTermNs after it was asked for; then it is renewed (one request that carries no names when
// it stood all along). A restarted owner forgot its leases; the term bounds how long a holder
// takes names as absent there that another node may have made meanwhile.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "fs/core/service/node_service.h"

namespace bb::fs {

class DirLeases {
 public:
  static constexpr int64_t kTermNs = 2'000'000'000;
  // A refused lease is not asked for again before this.
  static constexpr int64_t kRetryNs = 10'000'000'000;
  // Leases (and askings) held at most (past it, those past their term are forgotten); known names
  // per lease, and in all, past which a lease is not used (and forgets its names).
  static constexpr size_t kMaxLeases = 1024;
  static constexpr size_t kMaxKnown = 65536;
  static constexpr size_t kMaxKnownTotal = size_t{1} << 19;

  // What a lookup of a name does.
  struct Use {
    uint64_t grant = 0;  // not 0: the name is absent, reserved for this node by this lease
    bool ask = false;    // ask the owner: LeaseDir(dir, renew), then Granted or Refused
    uint64_t renew = 0;
  };
  // A lookup of `name` in `dir`, whose names `owner` holds, at `now_ns` (monotonic); without
  // `may_ask`, never Use::ask.
  Use Absent(const std::string& dir, NodeId owner, const std::string& name, int64_t now_ns, bool may_ask = true);
  // The owner answered the Use::ask of `asked_ns`. `waiting`: the names this node made in `dir`
  // that were not stored at the owner when the asking began (DeferredCreates), known too.
  void Granted(const std::string& dir, NodeId owner, int64_t asked_ns, const DirLease& lease,
               const std::vector<std::string>& waiting);
  // The request failed.
  void Refused(const std::string& dir, NodeId owner, int64_t now_ns);
  // The owner asked for the lease back at `now_ns`: it ends here (an asking under way comes to
  // nothing), and is not asked for again before kRetryNs (another node uses the directory).
  void Recalled(const std::string& dir, NodeId owner, int64_t now_ns);
  // `owner` forgot every lease it gave (it started again): they end here, and may be asked for
  // again at once.
  void Forget(NodeId owner);

  // A make under way (see the file comment); ends when destroyed.
  class Making {
   public:
    Making() = default;
    Making(Making&& o) noexcept : leases_(std::exchange(o.leases_, nullptr)), dir_(std::move(o.dir_)) {}
    Making& operator=(Making&&) = delete;
    ~Making() {
      if (leases_ != nullptr) leases_->Done(dir_);
    }

   private:
    friend class DirLeases;
    Making(DirLeases* leases, std::string dir) : leases_(leases), dir_(std::move(dir)) {}
    DirLeases* leases_ = nullptr;
    std::string dir_;
  };
  // This node is about to make `path`, whose owner is `owner` (a create, a link or a rename to it).
  [[nodiscard]] Making Make(const std::string& path, NodeId owner);

  struct Counters {
    uint64_t asked = 0;     // requests (new leases and renewals)
    uint64_t granted = 0;   // leases given (new ones)
    uint64_t renewed = 0;   // renewals of a lease that stood
    uint64_t refused = 0;   // requests refused or failed
    uint64_t recalled = 0;  // leases their owner asked back
    uint64_t absent = 0;    // lookups answered by a lease
    uint64_t held = 0;      // leases held now
  };
  Counters counters() const;

 private:
  enum class State { kAsking, kHeld, kRefused };
  struct Lease {
    State state = State::kAsking;
    uint64_t grant = 0;
    int64_t until_ns = 0;  // kHeld: used until; kRefused: not asked again until
    bool full = false;     // too many names known: not used, and they are forgotten
    std::unordered_set<std::string> known;
  };
  using Key = std::pair<std::string, NodeId>;
  // REQUIRES mu_. Marks `l` asked for.
  Use AskLocked(Lease& l, uint64_t renew);
  // REQUIRES mu_. Forgets the leases past their term and the refusals past their wait.
  void PruneLocked(int64_t now_ns);
  // REQUIRES mu_.
  void KnowLocked(Lease& l, std::string name);
  // REQUIRES mu_. Drops what `l` knows.
  void ForgetLocked(Lease& l);
  void Done(const std::string& dir);

  mutable std::mutex mu_;  // guards everything below
  std::map<Key, Lease> leases_;
  std::unordered_map<std::string, int> making_;  // makes under way, by directory
  size_t known_total_ = 0;                       // names known by all leases
  Counters counters_;
};

}  // namespace bb::fs
