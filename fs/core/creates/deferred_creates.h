// DeferredCreates: files this node made on names their metadata owners reserved for it, not yet
// stored at those owners, and the reservations ("rights") it holds.
//
// When a process makes small files one after another in a directory (CreateStreams), this node
// asks the owner of each name it looks up to reserve the name when it is absent
// (NodeService::ReserveName, in the lookup's one round trip). The create the kernel sends next is
// then answered here, without a round trip: the entry is made here and goes to its owner later —
// with the file's first write when that goes to the owner anyway (WriteChunkAndUpdate: a small
// file's chunk, entry and size in one request), else in the next batch, one request per owner for
// every entry made within `interval` (MakeEntries). Until it is stored there, the owner asks this
// node for it whenever anyone else reads, makes or changes the name or lists its directory
// (NameReservations, HandOver), so every node sees the file once its create returned here, and
// no other node can make the name (O_EXCL holds).
//
// Rights unused for an interval (a lookup no create followed) are given up in the next batch. A
// batch that fails (its owner down), and an entry its owner cannot store for now (ENOSPC, EIO,
// EAGAIN: its store full or failing), are sent again a second later; an entry its owner refuses
// (the owner restarted and forgot the reservation, and another node made the name meanwhile) is
// counted as lost. Entries not yet stored die with this daemon, as writes behind do.
//
// Thread-safety: every method may be called concurrently; `send` runs on the flusher's thread or
// in Flush/SendNow, with no lock held.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "fs/base/clock.h"
#include "fs/base/status.h"
#include "fs/core/data/interval_flusher.h"
#include "fs/core/placement/layout.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

// An entry its owner could not store for now (its store full or failing): worth storing again.
bool EntryRetried(int code);

class DeferredCreates {
 public:
  // Stores `made` at `owner` and gives up `released` there (NodeService::MakeEntries).
  using Send = std::function<Result<std::vector<int>>(NodeId owner, const std::vector<MadeEntry>& made,
                                                      const std::vector<NameGrant>& released)>;
  struct Counters {
    uint64_t granted = 0;      // rights taken
    uint64_t made = 0;         // files made here on them
    uint64_t with_write = 0;   // of those, stored with their first write
    uint64_t batches = 0;      // requests that stored the others (and gave rights up)
    uint64_t handed_over = 0;  // entries their owner asked back for
    uint64_t released = 0;     // rights given up unused
    uint64_t lost = 0;         // entries their owner refused
    uint64_t retried = 0;      // entries sent again after a batch failed
  };

  // `clock` must outlive this. `interval` 0: no flusher thread (Flush sends). At most `capacity`
  // rights and entries wait here; past it no right is taken (HasRoom).
  DeferredCreates(Send send, std::chrono::milliseconds interval, size_t capacity, const Clock* clock);
  ~DeferredCreates();  // sends what waits
  DeferredCreates(const DeferredCreates&) = delete;
  DeferredCreates& operator=(const DeferredCreates&) = delete;

  bool HasRoom() const { return size_.load(std::memory_order_relaxed) < capacity_; }
  // This node is about to ask `owner` to reserve `path` (NodeService::ReserveName); then exactly
  // one of Granted or Refused. An owner that asks for the name back meanwhile (its grant may
  // still be on its way here, settled before it arrives) revokes it: Granted then takes nothing.
  void Asking(const std::string& path);
  // `owner` reserved `path` for this node with grant `grant` (unless revoked meanwhile).
  void Granted(const std::string& path, NodeId owner, uint64_t grant);
  // The owner reserved nothing (the name is there, no room, or the request failed).
  void Refused(const std::string& path);
  // What this node knows of `path` by itself: nothing (ask its owner), that it is absent (a right
  // is held), or the entry it made there (`*md`).
  enum class Known { kNothing, kAbsent, kMade };
  Known Find(const std::string& path, Metadata* md) const;
  // Makes `path` as `md` here when this node holds its right: true. False: make it at its owner.
  bool Make(const std::string& path, const Metadata& md);
  // This node makes `path` at its owner itself: a right it holds goes (the owner ends it then).
  void Forget(const std::string& path);
  // `owner` forgot the reservations it gave (it started again): the rights unused here go.
  void ForgetRights(NodeId owner);
  // A write to file `file_id`, made at `path`: its entry waiting here takes `u` (size, times).
  // False when it waits here no more (it was sent or handed over: publish the usual way).
  bool Update(const std::string& path, uint64_t file_id, const MetaUpdate& u);
  // The entry of `path` (file `file_id`) with `u` applied, for a request about to be sent (the
  // file's first write), which carries it from now; nullopt when it waits here no more. Taken()
  // then says what became of the request.
  std::optional<Metadata> Take(const std::string& path, uint64_t file_id, const MetaUpdate& u);
  // `ok`: the owner stored the entry the request carried; else it goes with the next batch.
  void Taken(const std::string& path, uint64_t file_id, bool ok);
  // Sends the entry of `path` to its owner now when it waits here (fsync); OK when none waits.
  Status SendNow(const std::string& path);
  // Their owner `owner` asks for `paths` back: returns the entries made on them (those on their
  // way in a request too, marked in_flight) and gives up the rights. Names another node reserved
  // stay as they are.
  std::vector<MadeEntry> HandOver(const std::vector<std::string>& paths, NodeId owner);
  // The same for every name of directory `dir` (its lease, DirLeases, ends).
  std::vector<MadeEntry> HandOverDir(const std::string& dir, NodeId owner);
  // The names of `dir` made here whose entries `owner` has not stored yet.
  std::vector<std::string> Waiting(const std::string& dir, NodeId owner) const;
  // Sends every entry waiting here and gives up the rights unused for an interval; returns the
  // first error.
  Status Flush();

  size_t waiting() const { return size_.load(std::memory_order_relaxed); }
  Counters counters() const;

  static constexpr std::chrono::milliseconds kRetryAfter{1000};

 private:
  enum class State { kAsking, kRight, kMade, kSending };
  struct Item {
    NodeId owner = 0;
    State state = State::kRight;
    bool revoked = false;  // kAsking: its owner asked for it back before the grant came
    uint64_t grant = 0;
    int64_t since_ns = 0;  // right granted at
    Metadata md;           // kMade, kSending
  };
  // REQUIRES mu_. Hands the item over to `owner` (into `out`) when it is its; true when it went.
  bool HandOverLocked(std::unordered_map<std::string, Item>::iterator it, NodeId owner, std::vector<MadeEntry>* out);
  // REQUIRES mu_.
  void EraseLocked(std::unordered_map<std::string, Item>::iterator it);
  // REQUIRES mu_. True when the flusher is to be woken (no flush is due yet).
  bool Arm();
  // What a flush sends to each owner: the entries made (now marked on their way) and the rights
  // unused for an interval (now gone here); `rights_left`: younger rights stay.
  struct Batch {
    std::vector<MadeEntry> made;
    std::vector<NameGrant> released;
  };
  std::map<NodeId, Batch> TakeBatches(bool* rights_left);
  // What became of entries one request carried (MakeEntries' answer `codes`): each stored or
  // refused (counted lost) goes; when the request failed, each goes back to be sent again
  // (`*failed`). Returns the request's error.
  Status Sent(const std::vector<MadeEntry>& sent, const Result<std::vector<int>>& codes, bool* failed);

  const Send send_;
  const size_t capacity_;
  const std::chrono::milliseconds interval_;
  const Clock* const clock_;
  mutable std::mutex mu_;  // guards items_ and counters_
  std::unordered_map<std::string, Item> items_;
  std::atomic<size_t> size_{0};  // items_.size()
  Counters counters_;
  bool armed_ = false;       // a flush is due (the flusher was woken since the last one began)
  std::mutex send_mu_;       // one batch at a time
  IntervalFlusher flusher_;  // last: its thread uses the members above
};

}  // namespace bb::fs
