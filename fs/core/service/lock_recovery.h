// What a node's daemon does for record and flock locks as it starts in a cluster
// (Daemon::StartFileSystem).
//
// The processes of its last daemon's mount died with it: their locks go from every other node
// (an unlock of kAllFiles there). And the locks this node keeps for the other nodes' processes,
// in memory, went with that daemon: each holder still has them (FileSystem::HeldLocksKeptBy),
// and this node takes them back (NodeService::HeldLocks) before it answers any other lock
// request. Meanwhile its LockTables answer EINPROGRESS, which the asker tries again, so no lock
// is granted over one its holder still counts on.
#pragma once

#include <cstddef>
#include <vector>

#include "fs/core/locks/range_locks.h"
#include "fs/core/placement/layout.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {

struct LockRecovery {
  size_t taken_back = 0;
  // Locks a holder gave that conflict with ones taken back already (none, unless a holder's
  // record went wrong): not set.
  size_t refused = 0;
  // Nodes that did not answer (down, or stuck): their processes' locks at this node are not
  // taken back.
  std::vector<NodeId> unreachable;
};

// `kept` is this node's tables; `nodes` reaches every node (as this node), a few nodes at a time
// (one that is down costs its deadline once). Ends the tables' recovery
// (LockTables::EndRecovery) whatever happens.
LockRecovery RecoverLocks(NodeView view, const NodeResolver& nodes, LockTables* kept);

}  // namespace bb::fs
