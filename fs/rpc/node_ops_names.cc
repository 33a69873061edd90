// The messages of reserved names and the entries made on them (node_ops.h: ReserveName,
// MakeEntries, HandOver, LeaseDir, HandOverDir; fs/core/creates/name_reservations.h, deferred_creates.h
// and dir_leases.h).
#include <algorithm>

#include "fs/core/placement/path.h"
#include "fs/rpc/node_ops.h"

namespace bb::fs::rpc {

Response ReserveName::Serve(NodeService& s, const Request& q, std::string_view) {
  auto r = s.ReserveName(q.path);
  if (!r) return Error(r.error());
  Writer w;
  if (r->entry) return Ok(w.U8(1).Str(EncodeMetadata(*r->entry)).Take());
  return Ok(w.U8(0).U64(r->grant).Take());
}

Result<NameLookup> ReserveName::DecodeReply(std::string_view payload) {
  Reader r(payload);
  NameLookup out;
  uint8_t found = r.U8();
  std::string value = found == 1 ? r.Str() : std::string();
  if (found == 0) out.grant = r.U64();
  BB_RETURN_IF_ERROR(r.Finish("reserve name reply"));
  if (found > 1) return Status(EPROTO, "reserve name reply of unknown kind");
  if (found == 1) {
    BB_ASSIGN_OR_RETURN(Metadata md, DecodeMetadata(value));
    out.entry = std::move(md);
  }
  return out;
}

namespace {
// Encodes a MadeEntry: its path, EncodeMetadata and a byte (in flight).
void EncodeMade(Writer& w, const MadeEntry& e) { w.Str(e.path).Str(EncodeMetadata(e.md)).U8(e.in_flight ? 1 : 0); }

// Decodes a MadeEntry (path, entry, in-flight byte); fails `r` on a bad entry.
MadeEntry DecodeMade(Reader& r) {
  MadeEntry e;
  e.path = r.Str();
  std::string value = r.Str();
  uint8_t in_flight = r.U8();
  if (r.failed()) return e;
  auto md = DecodeMetadata(value);
  if (!md || in_flight > 1) {
    r.Fail();
    return e;
  }
  e.md = std::move(*md);
  e.in_flight = in_flight == 1;
  return e;
}
}  // namespace

// u32 count, then per entry its path, EncodeMetadata and a byte (in flight); u32 count, then per
// grant its path and u64 grant.
void MakeEntries::Encode(Writer& w, const Request& q) {
  w.U32(static_cast<uint32_t>(q.made.size()));
  for (const MadeEntry& e : q.made) EncodeMade(w, e);
  w.U32(static_cast<uint32_t>(q.released.size()));
  for (const NameGrant& g : q.released) w.Str(g.path).U64(g.grant);
}

MakeEntries::Request MakeEntries::Decode(Reader& r) {
  Request q;
  uint32_t n = r.U32();
  if (n > kMaxEntries || n > r.remaining() / 9) {  // each takes two lengths and a byte at least
    r.Fail();
    return q;
  }
  for (uint32_t i = 0; i < n && !r.failed(); ++i) q.made.push_back(DecodeMade(r));
  uint32_t m = r.U32();
  if (m > kMaxEntries || m > r.remaining() / 12) {
    r.Fail();
    return q;
  }
  for (uint32_t i = 0; i < m && !r.failed(); ++i) {
    NameGrant g;
    g.path = r.Str();
    g.grant = r.U64();
    q.released.push_back(std::move(g));
  }
  return q;
}

// Reply: u32 count, then one errno each.
Response MakeEntries::Serve(NodeService& s, const Request& q, std::string_view) {
  auto codes = s.MakeEntries(q.made, q.released);
  if (!codes) return Error(codes.error());
  Writer w;
  w.U32(static_cast<uint32_t>(codes->size()));
  for (int c : *codes) w.U32(static_cast<uint32_t>(c));
  return Ok(w.Take());
}

Result<std::vector<int>> MakeEntries::DecodeReply(std::string_view payload, size_t entries) {
  Reader r(payload);
  uint32_t n = r.U32();
  if (n != entries) return Status(EPROTO, "make entries reply with another count of entries");
  std::vector<int> out;
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    uint32_t code = r.U32();
    if (code > 4095) return Status(EPROTO, "make entries reply with an errno out of range");
    out.push_back(static_cast<int>(code));
  }
  BB_RETURN_IF_ERROR(r.Finish("make entries reply"));
  return out;
}

// u32 count, then the paths.
void HandOver::Encode(Writer& w, const Request& q) {
  w.U32(static_cast<uint32_t>(q.paths.size()));
  for (const std::string& p : q.paths) w.Str(p);
}

HandOver::Request HandOver::Decode(Reader& r) {
  Request q;
  uint32_t n = r.U32();
  if (n > MakeEntries::kMaxEntries || n > r.remaining() / 4) {
    r.Fail();
    return q;
  }
  for (uint32_t i = 0; i < n && !r.failed(); ++i) q.paths.push_back(r.Str());
  return q;
}

namespace {
// A hand-over's reply: u32 count, then per entry as in MakeEntries.
Response HandedOver(const Result<std::vector<MadeEntry>>& made) {
  if (!made) return Error(made.error());
  Writer w;
  w.U32(static_cast<uint32_t>(made->size()));
  for (const MadeEntry& e : *made) EncodeMade(w, e);
  return Ok(w.Take());
}
}  // namespace

Response HandOver::Serve(NodeService& s, const Request& q, std::string_view) { return HandedOver(s.HandOver(q.paths)); }

Result<std::vector<MadeEntry>> HandOver::DecodeReply(std::string_view payload, const std::vector<std::string>& paths) {
  Reader r(payload);
  uint32_t n = r.U32();
  if (n > paths.size()) return Status(EPROTO, "hand-over reply with more entries than asked for");
  std::vector<MadeEntry> out;
  for (uint32_t i = 0; i < n && !r.failed(); ++i) out.push_back(DecodeMade(r));
  BB_RETURN_IF_ERROR(r.Finish("hand-over reply"));
  for (const MadeEntry& e : out) {
    if (std::find(paths.begin(), paths.end(), e.path) == paths.end()) {
      return Status(EPROTO, "hand-over reply with an entry not asked for");
    }
  }
  return out;
}

// Reply: u64 grant, u32 count, then the names.
Response LeaseDir::Serve(NodeService& s, const Request& q, std::string_view) {
  auto lease = s.LeaseDir(q.dir, q.renew);
  if (!lease) return Error(lease.error());
  Writer w;
  w.U64(lease->grant).U32(static_cast<uint32_t>(lease->names.size()));
  for (const std::string& name : lease->names) w.Str(name);
  return Ok(w.Take());
}

Result<DirLease> LeaseDir::DecodeReply(std::string_view payload) {
  Reader r(payload);
  DirLease out;
  out.grant = r.U64();
  uint32_t n = r.U32();
  if (n > MakeEntries::kMaxEntries || n > r.remaining() / 4) return Status(EPROTO, "lease reply with a bad count");
  for (uint32_t i = 0; i < n && !r.failed(); ++i) out.names.push_back(r.Str());
  BB_RETURN_IF_ERROR(r.Finish("lease reply"));
  for (const std::string& name : out.names) {
    if (name.empty() || name.find('/') != std::string::npos) return Status(EPROTO, "lease reply with a bad name");
  }
  if (out.grant == 0 && !out.names.empty()) return Status(EPROTO, "refused lease reply with names");
  return out;
}

Response HandOverDir::Serve(NodeService& s, const Request& q, std::string_view) {
  return HandedOver(s.HandOverDir(q.dir));
}

Result<std::vector<MadeEntry>> HandOverDir::DecodeReply(std::string_view payload, const std::string& dir) {
  Reader r(payload);
  uint32_t n = r.U32();
  if (n > MakeEntries::kMaxEntries || n > r.remaining() / 9) {
    return Status(EPROTO, "directory hand-over reply with a bad count");
  }
  std::vector<MadeEntry> out;
  for (uint32_t i = 0; i < n && !r.failed(); ++i) out.push_back(DecodeMade(r));
  BB_RETURN_IF_ERROR(r.Finish("directory hand-over reply"));
  for (const MadeEntry& e : out) {
    if (ParentPath(e.path) != dir || e.path == dir) {
      return Status(EPROTO, "directory hand-over reply with an entry of another directory");
    }
  }
  return out;
}

}  // namespace bb::fs::rpc
