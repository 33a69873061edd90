// Private to fs/rpc: one struct per NodeService operation, with everything about it side by
// side — its op code, whether the server answers it on the transport's progress thread, its
// request (fields, encoding, decoding), how the server serves it, and how the client decodes
// the reply (ops that answer with an entry reply EncodeMetadata; ops that answer with a status
// reply nothing). The client (node_client.cc) and the server (node_server.cc) both use these, so an
// op's two ends cannot drift apart; a new op is one struct here plus one row in each table.
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

// ---- metadata ----

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

// ---- chunks ----

struct WriteChunk {  // file, chunk size, index, offset; the data as bulk -> status
  static constexpr NodeOp kOp = NodeOp::kWriteChunk;
  static constexpr const char* kName = "write chunk";
  struct Request {
    uint64_t file_id, chunk_size, index, offset;
  };
  static void Encode(Writer& w, const Request& q) { w.U64(q.file_id).U64(q.chunk_size).U64(q.index).U64(q.offset); }
  static Request Decode(Reader& r) { return {r.U64(), r.U64(), r.U64(), r.U64()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view bulk) {
    if (!InChunk(q.chunk_size, q.offset, bulk.size())) return Refuse("write: range beyond its chunk");
    return FromStatus(s.WriteChunk(q.file_id, q.chunk_size, q.index, q.offset, {bulk.data(), bulk.size()}));
  }
};

// File, chunk size, index, u32 count, then per range its offset and length; the ranges' data one
// after another as bulk -> status. At most kMaxRanges ranges, each within the chunk, their
// lengths adding up to the bulk's.
struct WriteChunkRanges {
  static constexpr NodeOp kOp = NodeOp::kWriteChunkRanges;
  static constexpr const char* kName = "write chunk ranges";
  static constexpr uint32_t kMaxRanges = 1024;
  struct Request {
    uint64_t file_id, chunk_size, index;
    std::vector<std::pair<uint64_t, uint64_t>> ranges;  // offset, length
  };
  static void Encode(Writer& w, const Request& q);
  static Request Decode(Reader& r);
  static Response Serve(NodeService& s, const Request& q, std::string_view bulk);
};

// As WriteChunk, plus path, update and the entry to make ("" for none) -> status, the entry after
// (if updated or made).
struct WriteChunkAndUpdate {
  static constexpr NodeOp kOp = NodeOp::kWriteChunkAndUpdate;
  static constexpr const char* kName = "write chunk and update";
  struct Request {
    WriteChunk::Request chunk;
    std::string path;
    std::string update;  // EncodeUpdate
    std::string make;    // EncodeMetadata, or empty
  };
  static void Encode(Writer& w, const Request& q) {
    WriteChunk::Encode(w, q.chunk);
    w.Str(q.path).Str(q.update).Str(q.make);
  }
  static Request Decode(Reader& r) {
    Request q;
    q.chunk = WriteChunk::Decode(r);
    q.path = r.Str();
    q.update = r.Str();
    q.make = r.Str();
    return q;
  }
  static Response Serve(NodeService& s, const Request& q, std::string_view bulk);
  static Result<std::optional<Metadata>> DecodeReply(std::string_view payload);
};

struct ReadChunk {  // file, chunk size, index, offset, length -> the bytes as bulk (short = hole)
  static constexpr NodeOp kOp = NodeOp::kReadChunk;
  static constexpr const char* kName = "read chunk";
  static constexpr uint64_t kMaxLength = 64u << 20;
  struct Request {
    uint64_t file_id, chunk_size, index, offset, length;
  };
  static void Encode(Writer& w, const Request& q) {
    w.U64(q.file_id).U64(q.chunk_size).U64(q.index).U64(q.offset).U64(q.length);
  }
  static Request Decode(Reader& r) { return {r.U64(), r.U64(), r.U64(), r.U64(), r.U64()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view);
};

struct AllocateChunk {  // file, chunk size, index, offset, length -> status
  static constexpr NodeOp kOp = NodeOp::kAllocateChunk;
  static constexpr const char* kName = "allocate chunk";
  using Request = ReadChunk::Request;
  static void Encode(Writer& w, const Request& q) { ReadChunk::Encode(w, q); }
  static Request Decode(Reader& r) { return ReadChunk::Decode(r); }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    if (!InChunk(q.chunk_size, q.offset, q.length)) return Refuse("allocate: range beyond its chunk");
    return FromStatus(s.AllocateChunk(q.file_id, q.chunk_size, q.index, q.offset, q.length));
  }
};

struct ZeroChunk {  // file, chunk size, index, offset, length, allocate -> status
  static constexpr NodeOp kOp = NodeOp::kZeroChunk;
  static constexpr const char* kName = "zero chunk";
  struct Request {
    uint64_t file_id, chunk_size, index, offset, length;
    bool allocate;
  };
  static void Encode(Writer& w, const Request& q) {
    w.U64(q.file_id).U64(q.chunk_size).U64(q.index).U64(q.offset).U64(q.length).U8(q.allocate ? 1 : 0);
  }
  static Request Decode(Reader& r) { return {r.U64(), r.U64(), r.U64(), r.U64(), r.U64(), r.U8() != 0}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    if (!InChunk(q.chunk_size, q.offset, q.length)) return Refuse("zero: range beyond its chunk");
    return FromStatus(s.ZeroChunk(q.file_id, q.chunk_size, q.index, q.offset, q.length, q.allocate));
  }
};

// ---- record locks ----

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

struct TruncateChunks {  // file, size, chunk size -> status
  static constexpr NodeOp kOp = NodeOp::kTruncateChunks;
  static constexpr const char* kName = "truncate chunks";
  struct Request {
    uint64_t file_id, size, chunk_size;
  };
  static void Encode(Writer& w, const Request& q) { w.U64(q.file_id).U64(q.size).U64(q.chunk_size); }
  static Request Decode(Reader& r) { return {r.U64(), r.U64(), r.U64()}; }
  static Response Serve(NodeService& s, const Request& q, std::string_view) {
    if (q.chunk_size == 0) return Refuse("truncate: chunk size 0");
    return FromStatus(s.TruncateChunks(q.file_id, q.size, q.chunk_size));
  }
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

// ---- workspaces ----

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
