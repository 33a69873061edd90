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

bool Always(std::string_view) { return true; }
bool Never(std::string_view) { return false; }
struct OpRow {
  NodeOp op;
  bool (*run_inline)(std::string_view payload);
  Response (*serve)(NodeService&, std::string_view payload, std::string_view bulk);
};

// In NodeOp order (op codes 1, 2, ...).
constexpr OpRow kOps[] = {
    {NodeOp::kGetMeta, Always, Serve<rpc::GetMeta>},
    {NodeOp::kCreateMeta, Never, Serve<rpc::CreateMeta>},
    {NodeOp::kPutMeta, Never, Serve<rpc::PutMeta>},
    {NodeOp::kUpdateMeta, Never, Serve<rpc::UpdateMeta>},
    {NodeOp::kRemoveMeta, Never, Serve<rpc::RemoveMeta>},
    {NodeOp::kMoveMeta, Never, Serve<rpc::MoveMeta>},
    {NodeOp::kListDir, Never, Serve<rpc::ListDir>},
    {NodeOp::kWriteChunk, Never, Serve<rpc::WriteChunk>},
    {NodeOp::kReadChunk, Never, Serve<rpc::ReadChunk>},
    {NodeOp::kAllocateChunk, Never, Serve<rpc::AllocateChunk>},
    {NodeOp::kTruncateChunks, Never, Serve<rpc::TruncateChunks>},
    {NodeOp::kRemoveChunks, Never, Serve<rpc::RemoveChunks>},
    {NodeOp::kSync, Never, Serve<rpc::SyncFile>},
    {NodeOp::kStatSpace, Never, Serve<rpc::StatSpace>},
    {NodeOp::kPing, Always, Serve<rpc::Ping>},
    {NodeOp::kPutWorkspace, Never, Serve<rpc::PutWorkspace>},
    {NodeOp::kDropWorkspace, Never, Serve<rpc::DropWorkspace>},
    {NodeOp::kPurgeTree, Never, Serve<rpc::PurgeTree>},
    {NodeOp::kRemoveFiles, Never, Serve<rpc::RemoveFiles>},
    {NodeOp::kInvalidate, Never, Serve<rpc::Invalidate>},
    {NodeOp::kListAttrs, Never, Serve<rpc::ListAttrs>},
};
static_assert(std::size(kOps) == static_cast<size_t>(NodeOp::kListAttrs), "one row per NodeOp");

const OpRow* Row(uint16_t op) {
  if (op < 1 || op > std::size(kOps)) return nullptr;
  const OpRow& row = kOps[op - 1];
  return static_cast<uint16_t>(row.op) == op ? &row : nullptr;
}

}  // namespace

bool ServeInline(uint16_t op, std::string_view payload) {
  const OpRow* row = Row(op);
  return row != nullptr && row->run_inline(payload);
}

transport::Response ServeNodeRequest(NodeService& local, uint16_t op, std::string_view payload, std::string_view bulk) {
  const OpRow* row = Row(op);
  if (row == nullptr) return rpc::Refuse("unknown operation " + std::to_string(op));
  return row->serve(local, payload, bulk);
}

transport::Handler NodeServer::Handler() {
  return [this](transport::NodeId caller, uint16_t op, std::string_view payload, std::string_view bulk) {
    NodeService* local = local_.load(std::memory_order_acquire);
    if (local == nullptr) return transport::Response{EIO, "node is starting", {}};
    Coherence* coherence = coherence_.load(std::memory_order_relaxed);
    if (coherence == nullptr) return ServeNodeRequest(*local, op, payload, bulk);
    CoherentView as_caller(local, coherence, caller);
    return ServeNodeRequest(as_caller, op, payload, bulk);
  };
}

}  // namespace bb::fs
