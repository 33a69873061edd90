#include "fs/rpc/node_rpc.h"

#include <cstring>

#include "fs/core/chunking.h"
#include "transport/wire.h"

namespace bb::fs {
namespace {

using transport::Reader;
using transport::Response;
using transport::Writer;

constexpr uint32_t kHas(int bit) { return 1u << bit; }

// A request's chunk size is one a file may have (IsValidChunkSize), and its range lies within
// one chunk of that size.
bool InChunk(uint64_t chunk_size, uint64_t offset, uint64_t length) {
  return IsValidChunkSize(chunk_size) && FitsChunk(chunk_size, offset, length);
}

std::string EncodeUpdate(const MetaUpdate& u) {
  uint32_t mask = (u.mode ? kHas(0) : 0) | (u.uid ? kHas(1) : 0) | (u.gid ? kHas(2) : 0) |
                  (u.size ? kHas(3) : 0) | (u.grow_to ? kHas(4) : 0) | (u.atime_ns ? kHas(5) : 0) |
                  (u.mtime_ns ? kHas(6) : 0) | (u.ctime_ns ? kHas(7) : 0) |
                  (u.data_location ? kHas(8) : 0);
  Writer w;
  w.U32(mask);
  w.U32(u.mode.value_or(0)).U32(u.uid.value_or(0)).U32(u.gid.value_or(0));
  w.U64(u.size.value_or(0)).U64(u.grow_to.value_or(0));
  w.I64(u.atime_ns.value_or(0)).I64(u.mtime_ns.value_or(0)).I64(u.ctime_ns.value_or(0));
  w.U32(u.data_location.value_or(0));
  return w.Take();
}

MetaUpdate DecodeUpdate(Reader& r) {
  MetaUpdate u;
  uint32_t mask = r.U32();
  uint32_t mode = r.U32(), uid = r.U32(), gid = r.U32();
  uint64_t size = r.U64(), grow = r.U64();
  int64_t at = r.I64(), mt = r.I64(), ct = r.I64();
  uint32_t loc = r.U32();
  if (mask & kHas(0)) u.mode = mode;
  if (mask & kHas(1)) u.uid = uid;
  if (mask & kHas(2)) u.gid = gid;
  if (mask & kHas(3)) u.size = size;
  if (mask & kHas(4)) u.grow_to = grow;
  if (mask & kHas(5)) u.atime_ns = at;
  if (mask & kHas(6)) u.mtime_ns = mt;
  if (mask & kHas(7)) u.ctime_ns = ct;
  if (mask & kHas(8)) u.data_location = loc;
  return u;
}

class RemoteNodeService final : public NodeService {
 public:
  RemoteNodeService(transport::Transport* t, transport::NodeId node, std::chrono::milliseconds d)
      : t_(t), node_(node), deadline_(d) {}

  Result<Metadata> GetMeta(const std::string& path) override {
    return MetaReply(Call(NodeOp::kGetMeta, Writer().Str(path).Take()));
  }
  Status CreateMeta(const std::string& path, const Metadata& md) override {
    return Call(NodeOp::kCreateMeta, Writer().Str(path).Str(EncodeMetadata(md)).Take()).status();
  }
  Status PutMeta(const std::string& path, const Metadata& md) override {
    return Call(NodeOp::kPutMeta, Writer().Str(path).Str(EncodeMetadata(md)).Take()).status();
  }
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& u) override {
    return MetaReply(Call(NodeOp::kUpdateMeta, Writer().Str(path).Str(EncodeUpdate(u)).Take()));
  }
  Result<Metadata> RemoveMeta(const std::string& path) override {
    return MetaReply(Call(NodeOp::kRemoveMeta, Writer().Str(path).Take()));
  }
  Result<Metadata> MoveMeta(const std::string& from, const std::string& to) override {
    return MetaReply(Call(NodeOp::kMoveMeta, Writer().Str(from).Str(to).Take()));
  }
  Result<DirPage> ListDir(const std::string& dir, const std::string& start_after,
                          uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(std::string p,
                        Call(NodeOp::kListDir, Writer().Str(dir).Str(start_after).U32(limit).Take()));
    Reader r(p);
    DirPage page;
    page.end = r.U8() != 0;
    uint32_t n = r.U32();
    if (n > limit) return Status(EPROTO, "directory page larger than asked for");
    page.entries.reserve(n);
    for (uint32_t i = 0; i < n && !r.failed(); ++i) {
      DirEntry e;
      e.name = r.Str();
      uint8_t type = r.U8();
      e.type = static_cast<FileType>(type);
      e.file_id = r.U64();
      if (type < 1 || type > 3) return Status(EPROTO, "directory entry of unknown type");
      page.entries.push_back(std::move(e));
    }
    BB_RETURN_IF_ERROR(r.Finish("list reply"));
    return page;
  }

  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    return Call(NodeOp::kWriteChunk, Writer().U64(file_id).U64(chunk_size).U64(index).U64(offset).Take(), data).status();
  }
  Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                           std::span<char> buf) override {
    std::string payload = Writer().U64(file_id).U64(chunk_size).U64(index).U64(offset).U64(buf.size()).Take();
    auto r = t_->Call(node_, static_cast<uint16_t>(NodeOp::kReadChunk), payload, {}, buf, deadline_);
    if (!r) return r.error();
    if (r->status != 0) return Status(r->status, r->payload);
    return r->bulk_size;
  }
  Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       uint64_t length) override {
    return Call(NodeOp::kAllocateChunk, Writer().U64(file_id).U64(chunk_size).U64(index).U64(offset).U64(length).Take())
        .status();
  }
  Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return Call(NodeOp::kTruncateChunks, Writer().U64(file_id).U64(size).U64(chunk_size).Take()).status();
  }
  Status RemoveChunks(uint64_t file_id) override {
    return Call(NodeOp::kRemoveChunks, Writer().U64(file_id).Take()).status();
  }
  Status Sync(uint64_t file_id) override {
    return Call(NodeOp::kSync, Writer().U64(file_id).Take()).status();
  }
  Result<SpaceStats> StatSpace() override {
    BB_ASSIGN_OR_RETURN(std::string p, Call(NodeOp::kStatSpace, ""));
    Reader r(p);
    SpaceStats s;
    s.block_size = r.U64();
    s.total_blocks = r.U64();
    s.free_blocks = r.U64();
    s.avail_blocks = r.U64();
    BB_RETURN_IF_ERROR(r.Finish("statfs reply"));
    if (s.block_size == 0) return Status(EPROTO, "statfs reply with block size 0");
    return s;
  }

  Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) override {
    return Call(NodeOp::kPutWorkspace,
                Writer().Str(name).Str(EncodeWorkspace(spec)).Str(EncodeMetadata(root)).Take()).status();
  }
  Status DropWorkspace(const std::string& name) override {
    return Call(NodeOp::kDropWorkspace, Writer().Str(name).Take()).status();
  }
  Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(std::string p, Call(NodeOp::kPurgeTree, Writer().Str(dir).U32(limit).Take()));
    Reader r(p);
    PurgePage page;
    page.more = r.U8() != 0;
    page.removed = r.U32();
    uint32_t n = r.U32();
    if (n > page.removed || n > limit) return Status(EPROTO, "purge reply with more files than entries");
    for (uint32_t i = 0; i < n && !r.failed(); ++i) page.file_ids.push_back(r.U64());
    BB_RETURN_IF_ERROR(r.Finish("purge reply"));
    return page;
  }
  Status RemoveFiles(const std::vector<uint64_t>& ids) override {
    Writer w;
    w.U32(static_cast<uint32_t>(ids.size()));
    for (uint64_t id : ids) w.U64(id);
    return Call(NodeOp::kRemoveFiles, w.Take()).status();
  }

 private:
  // The reply payload of a call whose status is 0; the remote error otherwise.
  Result<std::string> Call(NodeOp op, const std::string& payload, std::span<const char> bulk = {}) {
    auto r = t_->Call(node_, static_cast<uint16_t>(op), payload, bulk, {}, deadline_);
    if (!r) return r.error().Annotate("node " + std::to_string(node_));
    if (r->status != 0) return Status(r->status, r->payload);
    return std::move(r->payload);
  }

  static Result<Metadata> MetaReply(Result<std::string> reply) {
    if (!reply) return reply.error();
    return DecodeMetadata(*reply);
  }

  transport::Transport* const t_;
  const transport::NodeId node_;
  const std::chrono::milliseconds deadline_;
};

Response Error(const Status& s) { return Response{s.code() ? s.code() : EIO, s.message(), {}}; }
Response Ok(std::string payload = {}) { return Response{0, std::move(payload), {}}; }
Response FromStatus(const Status& s) { return s.ok() ? Ok() : Error(s); }
Response FromMeta(const Result<Metadata>& md) { return md ? Ok(EncodeMetadata(*md)) : Error(md.error()); }

}  // namespace

std::unique_ptr<NodeService> NewRemoteNodeService(transport::Transport* transport,
                                                  transport::NodeId node,
                                                  std::chrono::milliseconds deadline) {
  return std::make_unique<RemoteNodeService>(transport, node, deadline);
}

bool ServeInline(uint16_t op) {
  auto o = static_cast<NodeOp>(op);
  return o == NodeOp::kGetMeta || o == NodeOp::kPing;
}

Response ServeNodeRequest(NodeService& local, uint16_t op, std::string_view payload,
                          std::string_view bulk) {
  Reader r(payload);
  auto bad = [](const Status& s) { return Error(s); };
  switch (static_cast<NodeOp>(op)) {
    case NodeOp::kGetMeta: {
      std::string path = r.Str();
      if (Status s = r.Finish("get"); !s.ok()) return bad(s);
      return FromMeta(local.GetMeta(path));
    }
    case NodeOp::kCreateMeta:
    case NodeOp::kPutMeta: {
      std::string path = r.Str();
      std::string value = r.Str();
      if (Status s = r.Finish("create"); !s.ok()) return bad(s);
      auto md = DecodeMetadata(value);
      if (!md) return Error(md.error());
      return FromStatus(static_cast<NodeOp>(op) == NodeOp::kCreateMeta ? local.CreateMeta(path, *md)
                                                                       : local.PutMeta(path, *md));
    }
    case NodeOp::kUpdateMeta: {
      std::string path = r.Str();
      std::string enc = r.Str();
      if (Status s = r.Finish("update"); !s.ok()) return bad(s);
      Reader ur(enc);
      MetaUpdate u = DecodeUpdate(ur);
      if (Status s = ur.Finish("update fields"); !s.ok()) return bad(s);
      return FromMeta(local.UpdateMeta(path, u));
    }
    case NodeOp::kRemoveMeta: {
      std::string path = r.Str();
      if (Status s = r.Finish("remove"); !s.ok()) return bad(s);
      return FromMeta(local.RemoveMeta(path));
    }
    case NodeOp::kMoveMeta: {
      std::string from = r.Str();
      std::string to = r.Str();
      if (Status s = r.Finish("move"); !s.ok()) return bad(s);
      return FromMeta(local.MoveMeta(from, to));
    }
    case NodeOp::kListDir: {
      std::string dir = r.Str();
      std::string after = r.Str();
      uint32_t limit = r.U32();
      if (Status s = r.Finish("list"); !s.ok()) return bad(s);
      if (limit == 0 || limit > 65536) return bad(Status(EPROTO, "list: page size out of range"));
      auto page = local.ListDir(dir, after, limit);
      if (!page) return Error(page.error());
      Writer w;
      w.U8(page->end ? 1 : 0).U32(static_cast<uint32_t>(page->entries.size()));
      for (const DirEntry& e : page->entries) w.Str(e.name).U8(static_cast<uint8_t>(e.type)).U64(e.file_id);
      return Ok(w.Take());
    }
    case NodeOp::kWriteChunk: {
      uint64_t id = r.U64(), chunk = r.U64(), index = r.U64(), offset = r.U64();
      if (Status s = r.Finish("write"); !s.ok()) return bad(s);
      if (!InChunk(chunk, offset, bulk.size())) return bad(Status(EPROTO, "write: range beyond its chunk"));
      return FromStatus(local.WriteChunk(id, chunk, index, offset, {bulk.data(), bulk.size()}));
    }
    case NodeOp::kReadChunk: {
      uint64_t id = r.U64(), chunk = r.U64(), index = r.U64(), offset = r.U64(), length = r.U64();
      if (Status s = r.Finish("read"); !s.ok()) return bad(s);
      if (length > (64u << 20) || !InChunk(chunk, offset, length)) {
        return bad(Status(EPROTO, "read: range out of bounds"));
      }
      Response resp;
      resp.bulk.resize(length);
      auto n = local.ReadChunk(id, chunk, index, offset, {resp.bulk.data(), resp.bulk.size()});
      if (!n) return Error(n.error());
      resp.bulk.resize(*n);
      return resp;
    }
    case NodeOp::kAllocateChunk: {
      uint64_t id = r.U64(), chunk = r.U64(), index = r.U64(), offset = r.U64(), length = r.U64();
      if (Status s = r.Finish("allocate"); !s.ok()) return bad(s);
      if (!InChunk(chunk, offset, length)) return bad(Status(EPROTO, "allocate: range beyond its chunk"));
      return FromStatus(local.AllocateChunk(id, chunk, index, offset, length));
    }
    case NodeOp::kTruncateChunks: {
      uint64_t id = r.U64(), size = r.U64(), chunk = r.U64();
      if (Status s = r.Finish("truncate"); !s.ok()) return bad(s);
      if (chunk == 0) return bad(Status(EPROTO, "truncate: chunk size 0"));
      return FromStatus(local.TruncateChunks(id, size, chunk));
    }
    case NodeOp::kRemoveChunks: {
      uint64_t id = r.U64();
      if (Status s = r.Finish("remove chunks"); !s.ok()) return bad(s);
      return FromStatus(local.RemoveChunks(id));
    }
    case NodeOp::kSync: {
      uint64_t id = r.U64();
      if (Status s = r.Finish("sync"); !s.ok()) return bad(s);
      return FromStatus(local.Sync(id));
    }
    case NodeOp::kStatSpace: {
      auto s = local.StatSpace();
      if (!s) return Error(s.error());
      return Ok(Writer().U64(s->block_size).U64(s->total_blocks).U64(s->free_blocks).U64(s->avail_blocks).Take());
    }
    case NodeOp::kPing:
      return Ok("pong");
    case NodeOp::kPutWorkspace: {
      std::string name = r.Str();
      std::string spec = r.Str();
      std::string root = r.Str();
      if (Status s = r.Finish("put workspace"); !s.ok()) return bad(s);
      if (Status s = ValidateWorkspaceName(name); !s.ok()) return bad(Status(EPROTO, s.message()));
      auto ws = DecodeWorkspace(spec);
      if (!ws) return Error(Status(EPROTO, ws.error().message()));
      auto md = DecodeMetadata(root);
      if (!md) return Error(md.error());
      return FromStatus(local.PutWorkspace(name, *ws, *md));
    }
    case NodeOp::kDropWorkspace: {
      std::string name = r.Str();
      if (Status s = r.Finish("drop workspace"); !s.ok()) return bad(s);
      if (Status s = ValidateWorkspaceName(name); !s.ok()) return bad(Status(EPROTO, s.message()));
      return FromStatus(local.DropWorkspace(name));
    }
    case NodeOp::kPurgeTree: {
      std::string dir = r.Str();
      uint32_t limit = r.U32();
      if (Status s = r.Finish("purge"); !s.ok()) return bad(s);
      if (limit == 0 || limit > 65536) return bad(Status(EPROTO, "purge: batch size out of range"));
      if (dir.empty() || dir[0] != '/' || dir == "/") return bad(Status(EPROTO, "purge: not a directory below the root"));
      auto page = local.PurgeTree(dir, limit);
      if (!page) return Error(page.error());
      Writer w;
      w.U8(page->more ? 1 : 0).U32(page->removed).U32(static_cast<uint32_t>(page->file_ids.size()));
      for (uint64_t id : page->file_ids) w.U64(id);
      return Ok(w.Take());
    }
    case NodeOp::kRemoveFiles: {
      uint32_t n = r.U32();
      if (n > payload.size() / 8) return bad(Status(EPROTO, "remove files: count larger than the message"));
      std::vector<uint64_t> ids(n);
      for (auto& id : ids) id = r.U64();
      if (Status s = r.Finish("remove files"); !s.ok()) return bad(s);
      return FromStatus(local.RemoveFiles(ids));
    }
  }
  return bad(Status(EPROTO, "unknown operation " + std::to_string(op)));
}

}  // namespace bb::fs
