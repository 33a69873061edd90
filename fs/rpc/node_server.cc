// The server side: the op table and the dispatch of a request to its op (node_ops.h).
#include <iterator>

#include "fs/rpc/node_ops.h"
#include "fs/rpc/node_rpc.h"

namespace bb::fs {
namespace {

using rpc::Response;

// Decodes the request of `Op` from the whole payload, then serves it.
template <class Op>
Response Serve(NodeService& local, std::string_view payload, std::string_view bulk) {
  rpc::Reader r(payload);
  typename Op::Request request = Op::Decode(r);
  if (Status s = r.Finish(Op::kName); !s.ok()) return rpc::Error(s);
  return Op::Serve(local, request, bulk);
}

// Where a request is served (ServedOnOf).
constexpr auto kInline = transport::ServedOn::kDrivingThread;
constexpr auto kOwn = transport::ServedOn::kOwnThread;
constexpr auto kHandlers = transport::ServedOn::kHandlers;

struct OpRow {
  NodeOp op;
  transport::ServedOn where;
  Response (*serve)(NodeService&, std::string_view payload, std::string_view bulk);
};

// In NodeOp order (op codes 1, 2, ...).
constexpr OpRow kOps[] = {
    {NodeOp::kGetMeta, kInline, Serve<rpc::GetMeta>},
    {NodeOp::kCreateMeta, kHandlers, Serve<rpc::CreateMeta>},
    {NodeOp::kPutMeta, kHandlers, Serve<rpc::PutMeta>},
    {NodeOp::kUpdateMeta, kHandlers, Serve<rpc::UpdateMeta>},
    {NodeOp::kRemoveMeta, kHandlers, Serve<rpc::RemoveMeta>},
    {NodeOp::kMoveMeta, kHandlers, Serve<rpc::MoveMeta>},
    {NodeOp::kListDir, kHandlers, Serve<rpc::ListDir>},
    {NodeOp::kWriteChunk, kHandlers, Serve<rpc::WriteChunk>},
    {NodeOp::kReadChunk, kHandlers, Serve<rpc::ReadChunk>},
    {NodeOp::kAllocateChunk, kHandlers, Serve<rpc::AllocateChunk>},
    {NodeOp::kTruncateChunks, kHandlers, Serve<rpc::TruncateChunks>},
    {NodeOp::kRemoveChunks, kHandlers, Serve<rpc::RemoveChunks>},
    {NodeOp::kSync, kHandlers, Serve<rpc::SyncFile>},
    {NodeOp::kStatSpace, kHandlers, Serve<rpc::StatSpace>},
    {NodeOp::kPing, kInline, Serve<rpc::Ping>},
    {NodeOp::kPutWorkspace, kHandlers, Serve<rpc::PutWorkspace>},
    {NodeOp::kDropWorkspace, kHandlers, Serve<rpc::DropWorkspace>},
    {NodeOp::kPurgeTree, kHandlers, Serve<rpc::PurgeTree>},
    {NodeOp::kRemoveFiles, kHandlers, Serve<rpc::RemoveFiles>},
    {NodeOp::kInvalidate, kOwn, Serve<rpc::Invalidate>},
    {NodeOp::kListAttrs, kHandlers, Serve<rpc::ListAttrs>},
    {NodeOp::kWriteChunkAndUpdate, kHandlers, Serve<rpc::WriteChunkAndUpdate>},
    {NodeOp::kRemoveFile, kHandlers, Serve<rpc::RemoveFile>},
    {NodeOp::kReserveName, kInline, Serve<rpc::ReserveName>},
    {NodeOp::kMakeEntries, kHandlers, Serve<rpc::MakeEntries>},
    {NodeOp::kHandOver, kOwn, Serve<rpc::HandOver>},
    {NodeOp::kLeaseDir, kHandlers, Serve<rpc::LeaseDir>},
    {NodeOp::kHandOverDir, kOwn, Serve<rpc::HandOverDir>},
    {NodeOp::kMoveOutMeta, kHandlers, Serve<rpc::MoveOutMeta>},
    {NodeOp::kZeroChunk, kHandlers, Serve<rpc::ZeroChunk>},
    {NodeOp::kWriteChunkRanges, kHandlers, Serve<rpc::WriteChunkRanges>},
    {NodeOp::kLock, kHandlers, Serve<rpc::Lock>},
    {NodeOp::kHeldLocks, kHandlers, Serve<rpc::HeldLocks>},
};
static_assert(std::size(kOps) == static_cast<size_t>(NodeOp::kHeldLocks), "one row per NodeOp");

const OpRow* Row(uint16_t op) {
  if (op < 1 || op > std::size(kOps)) return nullptr;
  const OpRow& row = kOps[op - 1];
  return static_cast<uint16_t>(row.op) == op ? &row : nullptr;
}

}  // namespace

transport::ServedOn ServedOnOf(uint16_t op) {
  const OpRow* row = Row(op);
  return row != nullptr ? row->where : kHandlers;
}

transport::Response ServeNodeRequest(NodeService& local, uint16_t op, std::string_view payload, std::string_view bulk) {
  const OpRow* row = Row(op);
  if (row == nullptr) return rpc::Refuse("unknown operation " + std::to_string(op));
  return row->serve(local, payload, bulk);
}

transport::Handler NodeServer::Handler() {
  return [this](transport::NodeId caller, uint16_t op, std::string_view payload, std::string_view bulk,
                transport::ServedOn where) {
    NodeService* local = local_.load(std::memory_order_acquire);
    if (local == nullptr) return transport::Response{EIO, "node is starting", {}};
    Coherence* coherence = coherence_.load(std::memory_order_relaxed);
    if (coherence == nullptr) return ServeNodeRequest(*local, op, payload, bulk);
    // On the progress thread the view waits for nothing: a request that would (a name reserved
    // for another node, NameReservations) goes to a handler thread instead.
    CoherentView as_caller(local, coherence, caller, where != kInline);
    transport::Response r = ServeNodeRequest(as_caller, op, payload, bulk);
    if (as_caller.must_wait()) return transport::Response{transport::kServeOnHandlers, {}, {}};
    return r;
  };
}

}  // namespace bb::fs
