// CallbackTable: the owner's record of which nodes read each of its paths lately, which it tells
// of a change (fs/core/coherence/coherence.h has the scheme, as AFS keeps callbacks).
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "fs/base/clock.h"
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

}  // namespace bb::fs
