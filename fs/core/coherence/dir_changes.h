// DirChanges: what entries made and removed do to their directory, coalesced.
//
// POSIX wants a directory's mtime and ctime to move whenever an entry in it is made, removed or
// renamed, and its st_nlink to be 2 + its subdirectories. The directory's metadata lives on
// its owner node, usually not the node where the create ran, so one write to the owner per
// create would be a second round trip on every create. Instead a node notes each change here
// and sends one update per directory per interval: the latest time (applied as "no earlier
// than", so updates from several nodes in any order leave the latest) and the summed change of
// the subdirectory count. A getattr or lookup of a directory on this node adds its pending
// change to what the owner said (Begin/After), so a node always sees its own changes at once, at
// no cost (the kernel asks for the parent's attributes after every create); other nodes see
// them within the interval (plus their kernel's attribute cache timeout). A read that a send of
// its directory's change overlapped cannot tell whether the owner had it yet: it is read again,
// so a change is neither missed on its way nor counted twice.
//
// Thread-safety: all methods may be called from any thread; `send` runs on the caller's
// thread (FlushAll) or the flusher's, one send at a time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "fs/core/data/interval_flusher.h"

namespace bb::fs {

class DirChanges {
 public:
  struct Change {
    int64_t time_ns = 0;
    int32_t subdirs = 0;  // subdirectories made minus removed
  };
  using Send = std::function<void(const std::string& dir, const Change& change)>;

  // `interval` 0: no flusher thread (every change waits for FlushAll).
  DirChanges(Send send, std::chrono::milliseconds interval);
  ~DirChanges();  // sends what is pending
  DirChanges(const DirChanges&) = delete;
  DirChanges& operator=(const DirChanges&) = delete;

  void Note(const std::string& dir, int64_t time_ns, int32_t subdirs);
  // What is pending for `dir`, not yet sent (nullopt: nothing).
  std::optional<Change> Pending(const std::string& dir) const;
  void FlushAll();
  size_t pending() const;

  // A read of a directory's attributes (from its owner, or a copy its sends update) and this
  // node's change to add to it, counted once: Begin's token, taken before the read, tells After
  // whether a send of `dir` overlapped the read, so that its change may or may not be in what was
  // read. One that changed the subdirectory count: read again (nullopt). One of times only is
  // added again (harmless). After gives what to add (zero: nothing).
  uint64_t Begin() const;
  std::optional<Change> After(const std::string& dir, uint64_t token) const;
  // Holds every send off while alive: a read under it is never overlapped.
  std::unique_lock<std::mutex> HoldSends() { return std::unique_lock(send_mu_); }

 private:
  // Sends older than this many flushes are forgotten; a read that spans more reads again.
  static constexpr uint64_t kKeepFlushes = 16;

  const Send send_;
  mutable std::mutex mu_;  // guards the two below and writes of state_
  std::map<std::string, Change> pending_;
  // What flushes took of each directory: the last one's number, the latest time, and whether
  // any changed its subdirectory count (since it was last forgotten).
  struct Taken {
    uint64_t flush = 0;
    int64_t time_ns = 0;
    bool counts = false;
  };
  std::map<std::string, Taken> taken_;
  // The flushes that took something, + 1, times 2; + 1 while the last is on its way. Begin
  // reads it without the lock (every lookup and getattr calls it); written under mu_.
  std::atomic<uint64_t> state_{2};
  uint64_t Flushes() const { return state_.load(std::memory_order_acquire) / 2; }
  std::mutex send_mu_;       // one FlushAll at a time, so a directory's changes arrive in order
  IntervalFlusher flusher_;  // last: its thread uses the members above
};

}  // namespace bb::fs
