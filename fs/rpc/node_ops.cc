// The parts of the per-op messages (node_ops.h) too long to sit in the header.
#include "fs/rpc/node_ops.h"

namespace bb::fs::rpc {
namespace {

constexpr uint32_t kHas(int bit) { return 1u << bit; }
constexpr uint32_t kMaxPage = 65536;

}  // namespace

std::string EncodeUpdate(const MetaUpdate& u) {
  uint32_t mask = (u.mode ? kHas(0) : 0) | (u.uid ? kHas(1) : 0) | (u.gid ? kHas(2) : 0) | (u.size ? kHas(3) : 0) |
                  (u.grow_to ? kHas(4) : 0) | (u.atime_ns ? kHas(5) : 0) | (u.mtime_ns ? kHas(6) : 0) |
                  (u.ctime_ns ? kHas(7) : 0) | (u.data_location ? kHas(8) : 0) | (u.append ? kHas(9) : 0) |
                  (u.touch_ns ? kHas(10) : 0) | (u.subdirs ? kHas(11) : 0) | (u.links ? kHas(12) : 0) |
                  (u.link_role ? kHas(13) : 0) | (u.if_file_id ? kHas(14) : 0) | (u.alloc_to ? kHas(15) : 0) |
                  (u.xattr ? kHas(16) : 0);
  Writer w;
  w.U32(mask);
  w.U32(u.mode.value_or(0)).U32(u.uid.value_or(0)).U32(u.gid.value_or(0));
  w.U64(u.size.value_or(0)).U64(u.grow_to.value_or(0));
  w.I64(u.atime_ns.value_or(0)).I64(u.mtime_ns.value_or(0)).I64(u.ctime_ns.value_or(0));
  w.U32(u.data_location.value_or(0)).U64(u.append.value_or(0));
  w.I64(u.touch_ns.value_or(0)).U32(static_cast<uint32_t>(u.subdirs.value_or(0)));
  w.U32(static_cast<uint32_t>(u.links.value_or(0))).U8(static_cast<uint8_t>(u.link_role.value_or(LinkRole::kNone)));
  w.U64(u.if_file_id.value_or(0)).U64(u.alloc_to.value_or(0));
  if (u.xattr) {  // only with its bit: an update without one is as long as before
    w.Str(u.xattr->name).U8(u.xattr->value ? 1 : 0).Str(u.xattr->value.value_or(""));
    w.U32(static_cast<uint32_t>(u.xattr->flags));
  }
  return w.Take();
}

MetaUpdate DecodeUpdate(Reader& r) {
  MetaUpdate u;
  uint32_t mask = r.U32();
  uint32_t mode = r.U32(), uid = r.U32(), gid = r.U32();
  uint64_t size = r.U64(), grow = r.U64();
  int64_t at = r.I64(), mt = r.I64(), ct = r.I64();
  uint32_t loc = r.U32();
  uint64_t append = r.U64();
  int64_t touch = r.I64();
  auto subdirs = static_cast<int32_t>(r.U32());
  auto links = static_cast<int32_t>(r.U32());
  uint8_t role = r.U8();
  uint64_t if_file_id = r.U64();
  uint64_t alloc_to = r.U64();
  if (mask & kHas(0)) u.mode = mode;
  if (mask & kHas(1)) u.uid = uid;
  if (mask & kHas(2)) u.gid = gid;
  if (mask & kHas(3)) u.size = size;
  if (mask & kHas(4)) u.grow_to = grow;
  if (mask & kHas(5)) u.atime_ns = at;
  if (mask & kHas(6)) u.mtime_ns = mt;
  if (mask & kHas(7)) u.ctime_ns = ct;
  if (mask & kHas(8)) u.data_location = loc;
  if (mask & kHas(9)) u.append = append;
  if (mask & kHas(10)) u.touch_ns = touch;
  if (mask & kHas(11)) u.subdirs = subdirs;
  if (mask & kHas(12)) u.links = links;
  // An unknown role is dropped, never stored: DecodeMetadata would refuse the entry.
  if (mask & kHas(13) && role <= kMaxLinkRole) u.link_role = static_cast<LinkRole>(role);
  if (mask & kHas(14)) u.if_file_id = if_file_id;
  if (mask & kHas(15)) u.alloc_to = alloc_to;
  if (mask & kHas(16)) {
    MetaUpdate::XattrChange x;
    x.name = r.Str();
    bool set = r.U8() != 0;
    std::string value = r.Str();
    if (set) x.value = std::move(value);
    x.flags = static_cast<int>(r.U32() & 3);  // XATTR_CREATE | XATTR_REPLACE, nothing else
    u.xattr = std::move(x);
  }
  return u;
}

// Reply: u8 end, u32 count, then per entry: name, u8 type, u64 file id.
Response ListDir::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.limit == 0 || q.limit > kMaxPage) return Refuse("list: page size out of range");
  auto page = s.ListDir(q.dir, q.after, q.limit);
  if (!page) return Error(page.error());
  Writer w;
  w.U8(page->end ? 1 : 0).U32(static_cast<uint32_t>(page->entries.size()));
  for (const DirEntry& e : page->entries) w.Str(e.name).U8(static_cast<uint8_t>(e.type)).U64(e.file_id);
  return Ok(w.Take());
}

Result<DirPage> ListDir::DecodeReply(std::string_view payload, uint32_t limit) {
  Reader r(payload);
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
    if (type < 1 || type > kMaxFileType) return Status(EPROTO, "directory entry of unknown type");
    page.entries.push_back(std::move(e));
  }
  BB_RETURN_IF_ERROR(r.Finish("list reply"));
  return page;
}

// Reply: u8 end, last, u32 count, then per entry its name and EncodeMetadata.
Response ListAttrs::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.limit == 0 || q.limit > kMaxPage) return Refuse("list attributes: page size out of range");
  auto page = s.ListAttrs(q.dir, q.after, q.limit);
  if (!page) return Error(page.error());
  Writer w;
  w.U8(page->end ? 1 : 0).Str(page->last).U32(static_cast<uint32_t>(page->entries.size()));
  for (const DirAttrEntry& e : page->entries) w.Str(e.name).Str(EncodeMetadata(e.md));
  return Ok(w.Take());
}

Result<DirAttrPage> ListAttrs::DecodeReply(std::string_view payload, uint32_t limit) {
  Reader r(payload);
  DirAttrPage page;
  page.end = r.U8() != 0;
  page.last = r.Str();
  uint32_t n = r.U32();
  if (n > limit) return Status(EPROTO, "attribute page larger than asked for");
  page.entries.reserve(r.failed() ? 0 : n);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    DirAttrEntry e;
    e.name = r.Str();
    std::string value = r.Str();
    if (r.failed()) break;
    BB_ASSIGN_OR_RETURN(e.md, DecodeMetadata(value));
    if (e.name.empty() || e.name > page.last || (!page.entries.empty() && e.name <= page.entries.back().name)) {
      return Status(EPROTO, "attribute page out of order");
    }
    page.entries.push_back(std::move(e));
  }
  BB_RETURN_IF_ERROR(r.Finish("list attributes reply"));
  return page;
}

// Reply: u8 data gone, then the entry removed.
Response RemoveFile::Serve(NodeService& s, const Request& q, std::string_view) {
  auto r = s.RemoveFile(q.path, q.file_id);
  if (!r) return Error(r.error());
  return Ok(Writer().U8(r->data_gone ? 1 : 0).Str(EncodeMetadata(r->entry)).Take());
}

Result<NodeService::Removed> RemoveFile::DecodeReply(std::string_view payload) {
  Reader r(payload);
  NodeService::Removed out;
  out.data_gone = r.U8() != 0;
  std::string value = r.Str();
  BB_RETURN_IF_ERROR(r.Finish("remove file reply"));
  BB_ASSIGN_OR_RETURN(out.entry, DecodeMetadata(value));
  return out;
}

// Reply: u8 updated, then the entry after the update when it was.
Response WriteChunkAndUpdate::Serve(NodeService& s, const Request& q, std::string_view bulk) {
  const WriteChunk::Request& c = q.chunk;
  if (!InChunk(c.chunk_size, c.offset, bulk.size())) return Refuse("write: range beyond its chunk");
  Reader ur(q.update);
  MetaUpdate u = DecodeUpdate(ur);
  if (Status st = ur.Finish("update fields"); !st.ok()) return Error(st);
  if (!u.if_file_id) return Refuse("write and update: an update that names no file");
  std::optional<Metadata> make;
  if (!q.make.empty()) {
    auto md = DecodeMetadata(q.make);
    if (!md) return Error(md.error());
    if (md->file_id != c.file_id || md->file_id != *u.if_file_id) return Refuse("write and make: another file's entry");
    make = std::move(*md);
  }
  auto md =
      s.WriteChunkAndUpdate(c.file_id, c.chunk_size, c.index, c.offset, {bulk.data(), bulk.size()}, q.path, u, make);
  if (!md) return Error(md.error());
  Writer w;
  w.U8(md->has_value() ? 1 : 0);
  if (md->has_value()) w.Str(EncodeMetadata(**md));
  return Ok(w.Take());
}

Result<std::optional<Metadata>> WriteChunkAndUpdate::DecodeReply(std::string_view payload) {
  Reader r(payload);
  bool updated = r.U8() != 0;
  std::string value = updated ? r.Str() : std::string();
  BB_RETURN_IF_ERROR(r.Finish("write and update reply"));
  if (!updated) return std::optional<Metadata>();
  BB_ASSIGN_OR_RETURN(Metadata md, DecodeMetadata(value));
  return std::optional<Metadata>(std::move(md));
}

void WriteChunkRanges::Encode(Writer& w, const Request& q) {
  w.U64(q.file_id).U64(q.chunk_size).U64(q.index).U32(static_cast<uint32_t>(q.ranges.size()));
  for (const auto& [offset, length] : q.ranges) w.U64(offset).U64(length);
}

WriteChunkRanges::Request WriteChunkRanges::Decode(Reader& r) {
  Request q{r.U64(), r.U64(), r.U64(), {}};
  uint32_t n = r.U32();
  if (n > kMaxRanges || r.remaining() < uint64_t{n} * 16) {  // a count the request cannot hold
    r.Fail();
    return q;
  }
  q.ranges.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t offset = r.U64();
    q.ranges.emplace_back(offset, r.U64());
  }
  return q;
}

Response WriteChunkRanges::Serve(NodeService& s, const Request& q, std::string_view bulk) {
  if (q.ranges.empty()) return Refuse("write ranges: no range");
  std::vector<ChunkRange> ranges;
  ranges.reserve(q.ranges.size());
  uint64_t at = 0;
  for (const auto& [offset, length] : q.ranges) {
    if (!InChunk(q.chunk_size, offset, length)) return Refuse("write ranges: range beyond its chunk");
    if (length > bulk.size() - at) return Refuse("write ranges: ranges longer than the data");
    ranges.push_back({offset, {bulk.data() + at, length}});
    at += length;
  }
  if (at != bulk.size()) return Refuse("write ranges: data longer than the ranges");
  return FromStatus(s.WriteChunkRanges(q.file_id, q.chunk_size, q.index, ranges));
}

Response ReadChunk::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.length > kMaxLength || !InChunk(q.chunk_size, q.offset, q.length)) return Refuse("read: range out of bounds");
  Response resp;
  resp.bulk.resize(q.length);
  auto n = s.ReadChunk(q.file_id, q.chunk_size, q.index, q.offset, {resp.bulk.data(), resp.bulk.size()});
  if (!n) return Error(n.error());
  resp.bulk.resize(*n);
  return resp;
}

// Reply: u64 block size, total, free, available.
Response StatSpace::Serve(NodeService& s, const Request&, std::string_view) {
  auto st = s.StatSpace();
  if (!st) return Error(st.error());
  return Ok(Writer().U64(st->block_size).U64(st->total_blocks).U64(st->free_blocks).U64(st->avail_blocks).Take());
}

Result<SpaceStats> StatSpace::DecodeReply(std::string_view payload) {
  Reader r(payload);
  SpaceStats s;
  s.block_size = r.U64();
  s.total_blocks = r.U64();
  s.free_blocks = r.U64();
  s.avail_blocks = r.U64();
  BB_RETURN_IF_ERROR(r.Finish("statfs reply"));
  if (s.block_size == 0) return Status(EPROTO, "statfs reply with block size 0");
  return s;
}

Response PutWorkspace::Serve(NodeService& s, const Request& q, std::string_view) {
  if (Status st = ValidateWorkspaceName(q.name); !st.ok()) return Refuse(st.message());
  auto ws = DecodeWorkspace(q.spec);
  if (!ws) return Refuse(ws.error().message());
  auto md = DecodeMetadata(q.root);
  if (!md) return Error(md.error());
  return FromStatus(s.PutWorkspace(q.name, *ws, *md));
}

Response DropWorkspace::Serve(NodeService& s, const Request& q, std::string_view) {
  if (Status st = ValidateWorkspaceName(q.name); !st.ok()) return Refuse(st.message());
  return FromStatus(s.DropWorkspace(q.name));
}

// Reply: u8 more, u32 removed, u32 count, then the file ids.
Response PurgeTree::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.limit == 0 || q.limit > kMaxPage) return Refuse("purge: batch size out of range");
  if (q.dir.empty() || q.dir[0] != '/' || q.dir == "/") return Refuse("purge: not a directory below the root");
  auto page = s.PurgeTree(q.dir, q.limit);
  if (!page) return Error(page.error());
  Writer w;
  w.U8(page->more ? 1 : 0).U32(page->removed).U32(static_cast<uint32_t>(page->file_ids.size()));
  for (uint64_t id : page->file_ids) w.U64(id);
  return Ok(w.Take());
}

Result<PurgePage> PurgeTree::DecodeReply(std::string_view payload, uint32_t limit) {
  Reader r(payload);
  PurgePage page;
  page.more = r.U8() != 0;
  page.removed = r.U32();
  uint32_t n = r.U32();
  if (n > page.removed || n > limit) return Status(EPROTO, "purge reply with more files than entries");
  for (uint32_t i = 0; i < n && !r.failed(); ++i) page.file_ids.push_back(r.U64());
  BB_RETURN_IF_ERROR(r.Finish("purge reply"));
  return page;
}

// u32 count, then the ids.
void RemoveFiles::Encode(Writer& w, const Request& q) {
  w.U32(static_cast<uint32_t>(q.file_ids.size()));
  for (uint64_t id : q.file_ids) w.U64(id);
}

RemoveFiles::Request RemoveFiles::Decode(Reader& r) {
  Request q;
  uint32_t n = r.U32();
  if (n > r.remaining() / 8) {  // a count the message cannot hold
    r.Fail();
    return q;
  }
  q.file_ids.resize(n);
  for (auto& id : q.file_ids) id = r.U64();
  return q;
}

// u32 count, then per item its path and a byte: 0 = the attributes, 1 = the entry, 2 = the
// entry of a file that lives on elsewhere, followed by its u64 id and where it went.
void Invalidate::Encode(Writer& w, const Request& q) {
  w.U32(static_cast<uint32_t>(q.items.size()));
  for (const Invalidation& i : q.items) {
    if (i.entry && i.file_id != 0) {
      w.Str(i.path).U8(2).U64(i.file_id).Str(i.moved_to);
    } else {
      w.Str(i.path).U8(i.entry ? 1 : 0);
    }
  }
}

Invalidate::Request Invalidate::Decode(Reader& r) {
  Request q;
  uint32_t n = r.U32();
  if (n > r.remaining() / 5) {  // each item takes at least a length and a byte
    r.Fail();
    return q;
  }
  q.items.resize(n);
  for (auto& i : q.items) {
    i.path = r.Str();
    uint8_t kind = r.U8();
    if (kind > 2) r.Fail();
    i.entry = kind >= 1;
    if (kind == 2) {
      i.file_id = r.U64();
      i.moved_to = r.Str();
      if (i.file_id == 0) r.Fail();
    }
  }
  return q;
}

}  // namespace bb::fs::rpc
