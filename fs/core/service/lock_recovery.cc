#include "fs/core/service/lock_recovery.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace bb::fs {
namespace {

constexpr uint32_t kPage = 4096;  // locks asked for at a time (the wire's bound)
constexpr uint32_t kAskers = 16;  // nodes asked at the same time

// Takes back what `holder` holds of the locks this node keeps. False when it did not answer.
// Pages must move on (files after the last page's), and the tables must have room: a holder
// that answers otherwise (wrong, or hostile) is given up on, so a start never hangs on it.
bool TakeBackFrom(NodeService* holder, NodeId n, LockTables* kept, LockRecovery* out) {
  uint64_t after = 0;
  for (;;) {
    auto page = holder->HeldLocks(after, kPage);
    if (!page) return false;
    const uint64_t before = after;
    for (HeldLock& h : page->locks) {
      h.lock.owner.node = n;  // a holder gives back its own locks only
      Status s = h.file_id > before ? kept->TakeBack(h.file_id, h.lock) : Status(EPROTO, "a file already given");
      if (s.ok()) {
        ++out->taken_back;
      } else {
        ++out->refused;
        if (s.code() == ENOLCK) return true;  // full: the rest could not be kept either
      }
      after = std::max(after, h.file_id);
    }
    if (!page->more || after == before) return true;
  }
}

}  // namespace

LockRecovery RecoverLocks(NodeView view, const NodeResolver& nodes, LockTables* kept) {
  kept->BeginRecovery();
  LockRecovery out;
  std::mutex mu;  // guards out
  std::atomic<NodeId> next{0};
  // Nodes are asked a few at a time: one that is down costs its deadline, not everyone's.
  auto work = [&] {
    for (NodeId n = next++; n < view.nodes; n = next++) {
      if (n == view.self) continue;
      LockRecovery mine;
      NodeService* other = nodes(n);
      Status dropped = other->Lock(kAllFiles, RangeLock{{view.self, 0}, LockType::kUnlock}, false).status();
      bool answered = dropped.ok() && TakeBackFrom(other, n, kept, &mine);
      std::lock_guard lock(mu);
      out.taken_back += mine.taken_back;
      out.refused += mine.refused;
      if (!answered) out.unreachable.push_back(n);
    }
  };
  std::vector<std::thread> workers;
  for (uint32_t i = 1; i < std::min<uint32_t>(view.nodes, kAskers); ++i) workers.emplace_back(work);
  work();
  for (std::thread& t : workers) t.join();
  std::sort(out.unreachable.begin(), out.unreachable.end());
  kept->EndRecovery();
  return out;
}

}  // namespace bb::fs
