// Private to fs/rpc: what every op of node_ops.h builds on — the reply helpers and the ops of one
// shape (a path in, an entry out; an entry in, a status out; a file id in, a status out).
//
// An op is one struct with everything about it side by side: its op code, whether the server
// answers it on the transport's progress thread, its request (fields, encoding, decoding), how
// the server serves it, and how the client decodes the reply (ops that answer with an entry
// reply EncodeMetadata; ops that answer with a status reply nothing).
//
// Encoding: typed fields in the payload with transport::Writer/Reader (little-endian, strings
// length-prefixed); metadata values in their own versioned encoding (fs/store/metadata.h);
// chunk data as the bulk part. A reply's status is the errno of the method's result, its
// payload then the error message.
//
// Thread-safety: pure functions (Serve calls the node's service, which is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fs/core/placement/chunking.h"
#include "fs/core/service/node_service.h"
#include "fs/rpc/node_rpc.h"
#include "fs/store/chunk_store.h"
#include "transport/transport.h"
#include "transport/wire.h"

namespace bb::fs::rpc {

using transport::Reader;
using transport::Response;
using transport::Writer;

inline Response Error(const Status& s) { return Response{s.code() ? s.code() : EIO, s.message(), {}}; }
inline Response Ok(std::string payload = {}) { return Response{0, std::move(payload), {}}; }
inline Response FromStatus(const Status& s) { return s.ok() ? Ok() : Error(s); }
inline Response FromMeta(const Result<Metadata>& md) { return md ? Ok(EncodeMetadata(*md)) : Error(md.error()); }
inline Response Refuse(const std::string& what) { return Error(Status(EPROTO, what)); }

// A request's chunk size is one a file may have, and its range lies within one chunk of it.
inline bool InChunk(uint64_t chunk_size, uint64_t offset, uint64_t length) {
  return IsValidChunkSize(chunk_size) && FitsChunk(chunk_size, offset, length);
}

std::string EncodeUpdate(const MetaUpdate& u);
// Reads what EncodeUpdate wrote; `r.failed()` tells a short input.
MetaUpdate DecodeUpdate(Reader& r);

// Ops of one shape, one template each: a path in, an entry out (GetMeta, RemoveMeta); a path
// and an entry in, a status out (CreateMeta, PutMeta); a file id in, a status out.
template <NodeOp Op, const char* Name, Result<Metadata> (NodeService::*Method)(const std::string&)>
struct PathToEntry {
  static constexpr NodeOp kOp = Op;
  static constexpr const char* kName = Name;
  struct Request {
    std::string path;
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.path); }
  static Request Decode(Reader& r) { return {r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) { return FromMeta((s.*Method)(q.path)); }
};

template <NodeOp Op, const char* Name, Status (NodeService::*Method)(const std::string&, const Metadata&)>
struct EntryToStatus {
  static constexpr NodeOp kOp = Op;
  static constexpr const char* kName = Name;
  struct Request {
    std::string path;
    std::string value;  // EncodeMetadata
  };
  static void Encode(Writer& w, const Request& q) { w.Str(q.path).Str(q.value); }
  static Request Decode(Reader& r) { return {r.Str(), r.Str()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    auto md = DecodeMetadata(q.value);
    return md ? FromStatus((s.*Method)(q.path, *md)) : Error(md.error());
  }
};

template <NodeOp Op, const char* Name, Status (NodeService::*Method)(uint64_t)>
struct FileToStatus {
  static constexpr NodeOp kOp = Op;
  static constexpr const char* kName = Name;
  struct Request {
    uint64_t file_id;
  };
  static void Encode(Writer& w, const Request& q) { w.U64(q.file_id); }
  static Request Decode(Reader& r) { return {r.U64()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    return FromStatus((s.*Method)(q.file_id));
  }
};

inline constexpr char kGetMetaName[] = "get meta";
inline constexpr char kRemoveMetaName[] = "remove meta";
inline constexpr char kCreateMetaName[] = "create meta";
inline constexpr char kPutMetaName[] = "put meta";
inline constexpr char kRemoveChunksName[] = "remove chunks";
inline constexpr char kSyncName[] = "sync";
using GetMeta = PathToEntry<NodeOp::kGetMeta, kGetMetaName, &NodeService::GetMeta>;
using RemoveMeta = PathToEntry<NodeOp::kRemoveMeta, kRemoveMetaName, &NodeService::RemoveMeta>;
using CreateMeta = EntryToStatus<NodeOp::kCreateMeta, kCreateMetaName, &NodeService::CreateMeta>;
using PutMeta = EntryToStatus<NodeOp::kPutMeta, kPutMetaName, &NodeService::PutMeta>;
using RemoveChunks = FileToStatus<NodeOp::kRemoveChunks, kRemoveChunksName, &NodeService::RemoveChunks>;
using SyncFile = FileToStatus<NodeOp::kSync, kSyncName, &NodeService::Sync>;

}  // namespace bb::fs::rpc
