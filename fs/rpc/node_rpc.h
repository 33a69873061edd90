// NodeService over the transport: the client proxy a daemon uses for a remote node
// (NewRemoteNodeService), and the server side that answers those calls from the local node's
// service (NodeServer).
//
// Wire format: one transport operation per NodeService method (NodeOp). Each op's request,
// reply and serving are written side by side in fs/rpc/node_ops.h; typed fields travel in the
// frame's payload (transport/wire.h Writer/Reader), metadata values in their own versioned
// encoding (fs/store/metadata.h), chunk data as the bulk part, straight from and into the
// caller's buffers. A reply's status is the errno of the method's result, and its payload then
// carries the error message. A malformed request gets EPROTO with the reason, and changes
// nothing.
//
// Thread-safety: both sides may be used from many threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

#include "fs/core/coherence/coherence.h"
#include "fs/core/coherence/coherent_view.h"
#include "fs/core/service/node_service.h"
#include "transport/transport.h"

namespace bb::fs {

enum class NodeOp : uint16_t {
  kGetMeta = 1,
  kCreateMeta,
  kPutMeta,
  kUpdateMeta,
  kRemoveMeta,
  kMoveMeta,
  kListDir,
  kWriteChunk,
  kReadChunk,
  kAllocateChunk,
  kTruncateChunks,
  kRemoveChunks,
  kSync,
  kStatSpace,
  kPing,
  kPutWorkspace,
  kDropWorkspace,
  kPurgeTree,
  kRemoveFiles,
  kInvalidate,
  kListAttrs,
  kWriteChunkAndUpdate,
  kRemoveFile,
  kReserveName,
  kMakeEntries,
  kHandOver,
  kLeaseDir,
  kHandOverDir,
  kMoveOutMeta,
  kZeroChunk,
  kWriteChunkRanges,
  kLock,
  kHeldLocks,
};

// A NodeService that reaches node `node` through `transport`. `transport` must outlive it.
// Transport failures surface as the method's error (ETIMEDOUT, EIO, EHOSTUNREACH), annotated
// with the node.
std::unique_ptr<NodeService> NewRemoteNodeService(transport::Transport* transport, transport::NodeId node,
                                                  std::chrono::milliseconds deadline);

// Where the transport serves each op (TransportOptions::served_on). On the progress thread:
// the requests cheap enough, reading one metadata entry and the liveness probe. Writes go to
// the handler threads, even those that tell nobody: a LevelDB write may wait for a compaction
// (level-0 files piling up, or a memtable still being written out), and while it waited the
// progress thread would answer no ping, so that a node slowed under load (its CPU capped) was
// taken for gone by every caller. Whatever tells other nodes, scans or touches chunk data goes
// there too. On a handler thread of its own: the invalidations an owner telling of a change
// waits for while it holds a handler thread. Unknown ops: the handler threads, which refuse them.
transport::ServedOn ServedOnOf(uint16_t op);

// Answers one request with `local`. Malformed requests and unknown ops get EPROTO with the
// reason.
transport::Response ServeNodeRequest(NodeService& local, uint16_t op, std::string_view payload, std::string_view bulk);

// The server side of a daemon: the transport's Handler, serving the local node once it is
// attached. Requests that come before Attach (the node is still being assembled) are answered
// EIO "node is starting"; callers retry. With `coherence`, each request reaches `local`
// through a CoherentView as the node that sent it (fs/core/coherence/coherence.h).
class NodeServer {
 public:
  // The handler to start the transport with. This object must outlive the transport.
  transport::Handler Handler();
  // REQUIRES: `local` and `coherence` (may be null) outlive the transport.
  void Attach(NodeService* local, Coherence* coherence = nullptr) {
    coherence_.store(coherence, std::memory_order_relaxed);
    local_.store(local, std::memory_order_release);
  }

 private:
  std::atomic<NodeService*> local_{nullptr};
  std::atomic<Coherence*> coherence_{nullptr};
};

}  // namespace bb::fs
