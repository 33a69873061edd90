// Private to fs/rpc: the chunk ops: writes (alone, gathered, with the size), reads, allocation, zeroing, truncation
// (node_op_base.h has the layout of every op).
//
// Thread-safety: pure functions (Serve calls the node's service, which is thread-safe).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fs/rpc/node_op_base.h"

namespace bb::fs::rpc {

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

}  // namespace bb::fs::rpc
