#include "fs/core/lock_recovery.h"

#include <algorithm>

namespace bb::fs {
namespace {

constexpr uint32_t kPage = 4096;  // locks asked for at a time (the wire's bound)

// Takes back what `holder` holds of the locks this node keeps. False when it did not answer.
bool TakeBackFrom(NodeService* holder, NodeId n, LockTables* kept, LockRecovery* out) {
  uint64_t after = 0;
  for (;;) {
    auto page = holder->HeldLocks(after, kPage);
    if (!page) return false;
    for (HeldLock& h : page->locks) {
      h.lock.owner.node = n;  // a holder gives back its own locks only
      if (kept->TakeBack(h.file_id, h.lock).ok()) {
        ++out->taken_back;
      } else {
        ++out->refused;
      }
      after = std::max(after, h.file_id);
    }
    if (!page->more || page->locks.empty()) return true;
  }
}

}  // namespace

LockRecovery RecoverLocks(NodeView view, const NodeResolver& nodes, LockTables* kept) {
  kept->BeginRecovery();
  LockRecovery out;
  for (NodeId n = 0; n < view.nodes; ++n) {
    if (n == view.self) continue;
    NodeService* other = nodes(n);
    Status dropped = other->Lock(kAllFiles, RangeLock{{view.self, 0}, LockType::kUnlock}, false).status();
    if (!dropped.ok() || !TakeBackFrom(other, n, kept, &out)) out.unreachable.push_back(n);
  }
  kept->EndRecovery();
  return out;
}

}  // namespace bb::fs
