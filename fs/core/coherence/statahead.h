// Statahead: the attributes of a directory's entries, read ahead in bulk from the nodes that hold
// them, for a process that looks up one entry after another (ls -l, find, rm -r, mdtest's stat
// and delete phases), as Lustre's statahead does. A lookup that finds its entry here answers
// without a round trip; without it each lookup of another node's entry is one.
//
// Coherence: the owners register this node for every entry they list (NodeService::ListAttrs),
// as for a single read, so a change of one of them is told here before it returns (Changed), and
// so is every change this node makes itself. An entry answers for as long as its owner's promise
// to tell (`fresh_ns` from when it was asked), and once: the lookup that takes it keeps it as the
// inode's attributes, which the core keeps fresh as any other. Only entries that exist answer from
// here: a name that is not here is asked of its owner, so a file made elsewhere is found at once.
//
// When (Missed): a directory is read ahead once `trigger` lookups in it have each gone to an
// owner and found their entry, less than a second apart. A window holds at most `window` entries
// (over all nodes); the next read-ahead of the directory continues after it, and one past the
// directory's end starts again from its first name. A read-ahead that answered fewer lookups
// than it took to start one doubles the directory's trigger (up to kMaxTrigger), so lookups that
// do not follow the listing cost at most one window per `trigger` misses.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fs/store/metadata.h"

namespace bb::fs {

class Statahead {
 public:
  struct Options {
    int64_t fresh_ns = 0;     // how long an entry answers from when it was asked; 0: off
    uint32_t trigger = 8;     // misses in one directory before it is read ahead
    uint32_t window = 8192;   // entries per read-ahead, over all the nodes
    size_t capacity = 65536;  // entries held at most
  };
  static constexpr uint32_t kMaxTrigger = 1024;

  struct Hit {
    Metadata md;
    int64_t asked_ns;  // when its owner read it (its promise to tell runs from then)
  };
  // A read-ahead this node is to make: of `dir`, names after `start_after` ("": from the first).
  struct Plan {
    std::string dir;
    std::string start_after;
    uint64_t since;  // Changed() calls so far: those after it, Fill leaves out
  };
  struct Counters {
    uint64_t reads = 0;    // read-aheads made
    uint64_t fetched = 0;  // entries they brought
    uint64_t hits = 0;     // lookups answered from them
  };

  explicit Statahead(Options options) : options_(options) {}
  Statahead(const Statahead&) = delete;
  Statahead& operator=(const Statahead&) = delete;

  bool enabled() const { return options_.fresh_ns > 0; }
  uint32_t window() const { return options_.window; }

  // The entry read ahead for `path` while it answers (taken out: it answers once); nullopt
  // otherwise.
  std::optional<Hit> Take(const std::string& path, int64_t now_ns);
  // A lookup of an entry of `dir` went to its owner and found it. Returns the read-ahead to make
  // when this lookup is to make one; the caller then calls Fill or Abandon with it.
  std::optional<Plan> Missed(const std::string& dir, int64_t now_ns);
  // What the read-ahead `plan`, asked at `asked_ns`, brought (paths with their entries, any
  // order); `next`: where the directory's next read-ahead starts ("": at its first name again).
  // Entries at or below a path Changed since the plan was made are left out.
  void Fill(const Plan& plan, std::vector<std::pair<std::string, Metadata>> entries, int64_t asked_ns,
            std::string next);
  // The read-ahead `plan` failed: the directory may be read ahead again later.
  void Abandon(const Plan& plan);
  // `path` changed (its owner told this node, or this node changed it): its entry goes, with
  // every entry below it when `below` (a workspace removed, a name dropped from the kernel), and
  // a read-ahead under way keeps none of them.
  void Changed(const std::string& path, bool below);

  Counters counters() const;
  size_t size() const;

 private:
  struct Item {
    Metadata md;
    int64_t asked_ns;
  };
  struct DirState {
    uint32_t misses = 0;
    uint32_t trigger = 0;
    int64_t last_miss_ns = 0;
    bool reading = false;
    std::string next;           // where the next read-ahead starts
    uint64_t fetched_last = 0;  // entries the last read-ahead brought, until it is judged
    uint64_t hits_since = 0;    // lookups answered since it
  };
  // REQUIRES mu_. Whether `path` was Changed after change number `since`.
  bool ChangedSinceLocked(const std::string& path, uint64_t since) const;
  // REQUIRES mu_. Drops entries whose promise has run out.
  void ExpireLocked(int64_t now_ns);

  const Options options_;
  mutable std::mutex mu_;              // guards everything below
  std::map<std::string, Item> items_;  // ordered: a path's entries below it are one range
  std::unordered_map<std::string, DirState> dirs_;
  struct Change {
    uint64_t seq;
    std::string path;
    bool below;
  };
  // The last Changed() paths (bounded: a Fill older than the window keeps nothing).
  std::deque<Change> changes_;
  uint64_t change_seq_ = 0;
  Counters counters_;
};

}  // namespace bb::fs
