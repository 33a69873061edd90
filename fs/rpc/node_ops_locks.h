// Private to fs/rpc: the record-lock ops: a lock request at the keeping node, and the locks a node holds there
// (node_op_base.h has the layout of every op).
//
// Thread-safety: pure functions (Serve calls the node's service, which is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fs/rpc/node_op_base.h"

namespace bb::fs::rpc {

// File, the lock (owner's node and id, type, start, end, pid), test -> u8 conflict, then the
// conflicting lock when 1.
struct Lock {
  static constexpr NodeOp kOp = NodeOp::kLock;
  static constexpr const char* kName = "lock";
  struct Request {
    uint64_t file_id;
    RangeLock want;
    bool test;
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<std::optional<RangeLock>> DecodeReply(std::string_view payload);
};

// After, limit -> u8 more, u32 count, then per lock its file and the lock. At most kMaxLimit
// locks asked for a page; a reply holds the limit and less than a file's bound more.
struct HeldLocks {
  static constexpr NodeOp kOp = NodeOp::kHeldLocks;
  static constexpr const char* kName = "held locks";
  static constexpr uint32_t kMaxLimit = 4096;
  struct Request {
    uint64_t after;
    uint32_t limit;
  };
  static void Encode(Writer& w, const Request& q) { w.U64(q.after).U32(q.limit); }
  static Request Decode(Reader& r) { return {r.U64(), r.U32()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<HeldLockPage> DecodeReply(std::string_view payload, uint32_t limit);
};

}  // namespace bb::fs::rpc
