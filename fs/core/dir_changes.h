// DirChanges: what entries made and removed do to their directory, coalesced.
//
// POSIX wants a directory's mtime and ctime to move whenever an entry in it is made, removed or
// renamed, and its st_nlink to be 2 + its subdirectories. The directory's metadata lives on
// its owner node, usually not the node where the create ran, so one write to the owner per
// create would be a second round trip on every create. Instead a node notes each change here
// and sends one update per directory per interval: the latest time (applied as "no earlier
// than", so updates from several nodes in any order leave the latest) and the summed change of
// the subdirectory count. A getattr or lookup of a directory on this node adds its pending
// change to what the owner said (Overlay), so a node always sees its own changes at once, at
// no cost (the kernel asks for the parent's attributes after every create); other nodes see
// them within the interval (plus their kernel's attribute cache timeout).
//
// Thread-safety: all methods may be called from any thread; `send` runs on the caller's
// thread (FlushAll) or the flusher's, one send at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "fs/core/interval_flusher.h"

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

 private:
  const Send send_;
  mutable std::mutex mu_;  // guards pending_
  std::map<std::string, Change> pending_;
  std::mutex send_mu_;       // one FlushAll at a time, so a directory's changes arrive in order
  IntervalFlusher flusher_;  // last: its thread uses the members above
};

}  // namespace bb::fs
