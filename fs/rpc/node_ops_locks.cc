// The messages of record and flock locks (node_ops.h: Lock, HeldLocks; fs/core/locks/range_locks.h).
#include "fs/rpc/node_ops.h"

namespace bb::fs::rpc {
namespace {

void EncodeLock(Writer& w, const RangeLock& l) {
  w.U32(l.owner.node).U64(l.owner.id).U8(static_cast<uint8_t>(l.type)).U64(l.start).U64(l.end).U32(l.pid);
  w.U8(l.owner.flock ? 1 : 0);
}

// Fails `r` on a lock no kernel could ask for: an unknown type or kind, a range that ends before
// it starts or past the end of any file, or a flock lock of part of a file.
RangeLock DecodeLock(Reader& r) {
  RangeLock l;
  l.owner.node = r.U32();
  l.owner.id = r.U64();
  uint8_t type = r.U8();
  l.start = r.U64();
  l.end = r.U64();
  l.pid = r.U32();
  uint8_t flock = r.U8();
  l.owner.flock = flock == 1;
  if (type > static_cast<uint8_t>(LockType::kUnlock) || l.start > l.end || l.end > kLockToEnd || flock > 1 ||
      (l.owner.flock && (l.start != 0 || l.end != kLockToEnd))) {
    r.Fail();
  }
  l.type = static_cast<LockType>(type);
  return l;
}

}  // namespace

void Lock::Encode(Writer& w, const Request& q) {
  w.U64(q.file_id);
  EncodeLock(w, q.want);
  w.U8(q.test ? 1 : 0);
}

Lock::Request Lock::Decode(Reader& r) {
  Request q{r.U64(), DecodeLock(r), false};
  uint8_t test = r.U8();
  if (test > 1) r.Fail();
  q.test = test == 1;
  return q;
}

Response Lock::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.test && q.want.type == LockType::kUnlock) return Refuse("lock: a test of an unlock");
  auto other = s.Lock(q.file_id, q.want, q.test);
  if (!other) return Error(other.error());
  Writer w;
  if (!*other) return Ok(w.U8(0).Take());
  w.U8(1);
  EncodeLock(w, **other);
  return Ok(w.Take());
}

Result<std::optional<RangeLock>> Lock::DecodeReply(std::string_view payload) {
  Reader r(payload);
  uint8_t held = r.U8();
  std::optional<RangeLock> other;
  if (held == 1) other = DecodeLock(r);
  BB_RETURN_IF_ERROR(r.Finish("lock reply"));
  if (held > 1 || (other && other->type == LockType::kUnlock)) return Status(EPROTO, "lock reply of unknown kind");
  return other;
}

Response HeldLocks::Serve(NodeService& s, const Request& q, std::string_view) {
  if (q.limit == 0 || q.limit > kMaxLimit) return Refuse("held locks: a page of " + std::to_string(q.limit));
  auto page = s.HeldLocks(q.after, q.limit);
  if (!page) return Error(page.error());
  Writer w;
  w.U8(page->more ? 1 : 0).U32(static_cast<uint32_t>(page->locks.size()));
  for (const HeldLock& h : page->locks) {
    w.U64(h.file_id);
    EncodeLock(w, h.lock);
  }
  return Ok(w.Take());
}

Result<HeldLockPage> HeldLocks::DecodeReply(std::string_view payload, uint32_t limit) {
  Reader r(payload);
  HeldLockPage page;
  uint8_t more = r.U8();
  uint32_t count = r.U32();
  if (more > 1 || count > uint64_t{limit} + LockTables::kMaxPerFile)
    return Status(EPROTO, "held locks reply of unknown kind");
  page.more = more == 1;
  for (uint32_t i = 0; i < count && !r.failed(); ++i) {
    uint64_t file_id = r.U64();
    page.locks.push_back({file_id, DecodeLock(r)});
    if (file_id == kAllFiles || page.locks.back().lock.type == LockType::kUnlock) r.Fail();
  }
  BB_RETURN_IF_ERROR(r.Finish("held locks reply"));
  return page;
}

}  // namespace bb::fs::rpc
