// Private to fs/rpc: the metadata ops: entries, directory pages, workspaces, space, liveness and invalidations
// (node_op_base.h has the layout of every op).
//
// Thread-safety: pure functions (Serve calls the node's service, which is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fs/rpc/node_op_base.h"

namespace bb::fs::rpc {

struct UpdateMeta {  // path, update -> the entry after it
  static constexpr NodeOp kOp = NodeOp::kUpdateMeta;
  static constexpr const char* kName = "update meta";
  struct Request {
    std::string path;
    std::string update;
  };  // update: EncodeUpdate
  static void Encode(Writer& w, const Request& q) { w.Str(q.path).Str(q.update); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    Reader ur(q.update);
    MetaUpdate u = DecodeUpdate(ur);
    if (Status st = ur.Finish("update fields"); !st.ok()) return Error(st);
    return FromMeta(s.UpdateMeta(q.path, u));
  }
};

struct RemoveFile {  // path, file id -> u8 data gone, the entry removed
  static constexpr NodeOp kOp = NodeOp::kRemoveFile;
  static constexpr const char* kName = "remove file";
  struct Request {
    std::string path;
    uint64_t file_id;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.path).U64(q.file_id); }
  static Request Decode(Reader& r) { return {r.Str(), r.U64()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<NodeService::Removed> DecodeReply(std::string_view payload);
};

struct MoveMeta {  // from, to, change time -> the entry moved
  static constexpr NodeOp kOp = NodeOp::kMoveMeta;
  static constexpr const char* kName = "move meta";
  struct Request {
    std::string from;
    std::string to;
    int64_t ctime_ns;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.from).Str(q.to).U64(static_cast<uint64_t>(q.ctime_ns)); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str(), static_cast<int64_t>(r.U64())}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    return FromMeta(s.MoveMeta(q.from, q.to, q.ctime_ns));
  }
};

struct MoveOutMeta {  // from, to -> the entry removed at `from` (a rename put it at `to` elsewhere)
  static constexpr NodeOp kOp = NodeOp::kMoveOutMeta;
  static constexpr const char* kName = "move out meta";
  struct Request {
    std::string from;
    std::string to;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.from).Str(q.to); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    return FromMeta(s.MoveOutMeta(q.from, q.to));
  }
};

struct ListDir {  // dir, start_after, limit -> page
  static constexpr NodeOp kOp = NodeOp::kListDir;
  static constexpr const char* kName = "list dir";
  struct Request {
    std::string dir;
    std::string after;
    uint32_t limit;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.dir).Str(q.after).U32(q.limit); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str(), r.U32()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<DirPage> DecodeReply(std::string_view payload, uint32_t limit);
};

struct ListAttrs {  // dir, start_after, limit -> page of entries with their metadata
  static constexpr NodeOp kOp = NodeOp::kListAttrs;
  static constexpr const char* kName = "list attributes";
  using Request = ListDir::Request;
  static void Encode(Writer& w, const Request& q) { ListDir::Encode(w, q); }
  static Request Decode(Reader& r) { return ListDir::Decode(r); }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<DirAttrPage> DecodeReply(std::string_view payload, uint32_t limit);
};

struct StatSpace {  // -> block size, total, free, available blocks
  static constexpr NodeOp kOp = NodeOp::kStatSpace;
  static constexpr const char* kName = "stat space";
  struct Request {};
  static void Encode(Writer&, const Request&) {}
  static Request Decode(Reader&) { return {}; }
  static Response Serve(NodeService& s, const Request&, std::string_view);
  static Result<SpaceStats> DecodeReply(std::string_view payload);
};

struct Ping {  // -> "pong" (liveness)
  static constexpr NodeOp kOp = NodeOp::kPing;
  static constexpr const char* kName = "ping";
  struct Request {};
  static void Encode(Writer&, const Request&) {}
  static Request Decode(Reader&) { return {}; }
  static Response Serve(NodeService&, const Request&, std::string_view) { return Ok("pong"); }
};

struct PutWorkspace {  // name, record (EncodeWorkspace), root entry -> status
  static constexpr NodeOp kOp = NodeOp::kPutWorkspace;
  static constexpr const char* kName = "put workspace";
  struct Request {
    std::string name, spec, root;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.name).Str(q.spec).Str(q.root); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str(), r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
};

struct DropWorkspace {  // name -> status
  static constexpr NodeOp kOp = NodeOp::kDropWorkspace;
  static constexpr const char* kName = "drop workspace";
  struct Request {
    std::string name;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.name); }
  static Request Decode(Reader& r) { return {r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
};

struct PurgeTree {  // dir, limit -> removed entries, their regular files, more?
  static constexpr NodeOp kOp = NodeOp::kPurgeTree;
  static constexpr const char* kName = "purge tree";
  struct Request {
    std::string dir;
    uint32_t limit;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.dir).U32(q.limit); }
  static Request Decode(Reader& r) { return {r.Str(), r.U32()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
  static Result<PurgePage> DecodeReply(std::string_view payload, uint32_t limit);
};

struct RemoveFiles {  // file ids -> status
  static constexpr NodeOp kOp = NodeOp::kRemoveFiles;
  static constexpr const char* kName = "remove files";
  struct Request {
    std::vector<uint64_t> file_ids;
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    return FromStatus(s.RemoveFiles(q.file_ids));
  }
};

struct Invalidate {  // invalidations -> status, once this node's kernel dropped them
  static constexpr NodeOp kOp = NodeOp::kInvalidate;
  static constexpr const char* kName = "invalidate";
  struct Request {
    std::vector<Invalidation> items;
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    return FromStatus(s.Invalidate(q.items));
  }
};

}  // namespace bb::fs::rpc
