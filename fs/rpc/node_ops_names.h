// Private to fs/rpc: the ops of names made where they happen: reservations, entries made elsewhere, hand-overs, leases
// (node_op_base.h has the layout of every op).
//
// Thread-safety: pure functions (Serve calls the node's service, which is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fs/rpc/node_op_base.h"

namespace bb::fs::rpc {

struct ReserveName {  // path -> u8 kind (0 absent, 1 found), then the entry or the u64 grant
  static constexpr NodeOp kOp = NodeOp::kReserveName;
  static constexpr const char* kName = "reserve name";
  struct Request {
    std::string path;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.path); }
  static Request Decode(Reader& r) { return {r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<NameLookup> DecodeReply(std::string_view payload);
};

struct MakeEntries {  // entries made, grants given up -> one errno per entry
  static constexpr NodeOp kOp = NodeOp::kMakeEntries;
  static constexpr const char* kName = "make entries";
  static constexpr uint32_t kMaxEntries = 65536;
  struct Request {
    std::vector<MadeEntry> made;
    std::vector<NameGrant> released;
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<std::vector<int>> DecodeReply(std::string_view payload, size_t entries);
};

struct HandOver {  // paths -> the entries made on them
  static constexpr NodeOp kOp = NodeOp::kHandOver;
  static constexpr const char* kName = "hand over";
  struct Request {
    std::vector<std::string> paths;
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<std::vector<MadeEntry>> DecodeReply(std::string_view payload, const std::vector<std::string>& paths);
};

struct LeaseDir {  // dir, u64 grant to renew -> u64 grant, u32 count, then the names
  static constexpr NodeOp kOp = NodeOp::kLeaseDir;
  static constexpr const char* kName = "lease directory";
  struct Request {
    std::string dir;
    uint64_t renew = 0;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.dir).U64(q.renew); }
  static Request Decode(Reader& r) {
    Request q;
    q.dir = r.Str();
    q.renew = r.U64();
    return q;
  }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<DirLease> DecodeReply(std::string_view payload);
};

struct HandOverDir {  // dir -> the entries made in it
  static constexpr NodeOp kOp = NodeOp::kHandOverDir;
  static constexpr const char* kName = "hand over directory";
  struct Request {
    std::string dir;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.dir); }
  static Request Decode(Reader& r) { return {r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<std::vector<MadeEntry>> DecodeReply(std::string_view payload, const std::string& dir);
};

}  // namespace bb::fs::rpc
