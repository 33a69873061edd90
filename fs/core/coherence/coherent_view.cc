// CoherentView (coherence.h): the local node's store as one caller sees it — registering the
// caller for what it reads, telling the others of what it changes, and settling the names
// reserved for other nodes (name_reservations.h) before it reads, makes or lists them.
#include "fs/core/coherence/coherent_view.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "fs/core/creates/deferred_creates.h"
#include "fs/core/placement/path.h"

namespace bb::fs {
namespace {

constexpr int kHandedOverTries = 40;  // every 50 ms: 2 s at most

}  // namespace

bool CoherentView::SettleRead(const std::string& path) {
  if (!may_wait_) {
    if (!c_->names().MustSettle(path, caller_, NameReservations::Intent::kRead)) return true;
    must_wait_ = true;
    return false;
  }
  c_->names().Settle(path, caller_, NameReservations::Intent::kRead, Store());
  return true;
}

void CoherentView::SettleOwnLeased(const std::string& path) {
  if (!LeasedToCaller(path)) return;
  auto here = local_->GetMeta(path);
  if (here || here.error().code() != ENOENT) return;  // stored here: not one it holds unsent
  c_->names().SettleOwn(path, caller_, Store());
}

Result<DirLease> CoherentView::LeaseDir(const std::string& dir, uint64_t renew) {
  // A caller that cannot be told of changes (a tool) takes no lease: it could not be asked back.
  if (!c_->Tracks(caller_, dir)) return DirLease{};
  return c_->names().Lease(
      dir, caller_, renew,
      [&](uint32_t limit) -> Result<std::vector<std::string>> {
        std::vector<std::string> names;
        std::string after;
        for (;;) {
          BB_ASSIGN_OR_RETURN(DirPage page, local_->ListDir(dir, after, limit));
          for (DirEntry& e : page.entries) names.push_back(std::move(e.name));
          if (page.end || page.entries.empty() || names.size() >= limit) return names;
          after = names.back();
        }
      },
      Store());
}

void CoherentView::StoreHandedOver(NodeId holder, const MadeEntry& e) {
  // Its holder's kernel caches the entry it made: a change must be told to it.
  if (c_->Tracks(holder, e.path)) c_->Register(e.path, holder);
  // Its holder gave it up: an owner store that cannot take it for now (full to its last byte,
  // its database waiting for room) is asked again for a while, as the holder's batches would.
  // Refused (another file's name), or still not stored then: lost with its holder's answer.
  // After one entry waited in vain, the next ones (of a directory's hand-over) try once each for
  // a second, so that a hand-over of many entries ends in time.
  using Clock = std::chrono::steady_clock;
  const int tries = Clock::now().time_since_epoch().count() < refusing_until_.load() ? 1 : kHandedOverTries;
  for (int t = 0; t < tries; ++t) {
    auto codes = local_->MakeEntries({e}, {});
    int code = !codes ? codes.error().code() : codes->empty() ? EIO : codes->front();
    if (!EntryRetried(code)) return;
    if (t + 1 < tries) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  refusing_until_ = (Clock::now() + std::chrono::seconds(1)).time_since_epoch().count();
}

Result<NameLookup> CoherentView::ReserveName(const std::string& path) {
  auto& names = c_->names();
  for (;;) {
    std::unique_lock<std::mutex> lock;
    if (may_wait_) {
      names.Settle(path, caller_, NameReservations::Intent::kReserve, Store());
      lock = names.Lock(path);
    } else {
      lock = names.TryLock(path);
    }
    if (!lock.owns_lock() || names.MustSettle(path, caller_, NameReservations::Intent::kReserve)) {
      if (may_wait_) continue;
      must_wait_ = true;
      return Status(EAGAIN, path + ": to be served where it may wait");
    }
    Register(path);  // before the read, as GetMeta
    BB_ASSIGN_OR_RETURN(NameLookup found, local_->ReserveName(path));
    // Absent, with room for its entry: reserved (a node that tells nobody cannot be told back).
    if (!found.entry && found.grant != 0) {
      found.grant = c_->Tracks(caller_, path) ? names.Reserve(path, caller_) : 0;
    }
    return found;
  }
}

int CoherentView::MakeOne(const MadeEntry& e) {
  return Making(e.path, NameReservations::Intent::kMake, [&] {
    // Stored from a hand-over while this request was on its way: nothing more to make.
    if (c_->names().HandedOver(e.path, caller_, e.md.file_id)) return 0;
    Register(e.path);
    auto codes = local_->MakeEntries({e}, {});
    return !codes ? codes.error().code() : codes->empty() ? EIO : codes->front();
  });
}

Result<std::vector<int>> CoherentView::MakeEntries(const std::vector<MadeEntry>& made,
                                                   const std::vector<NameGrant>& released) {
  for (const NameGrant& g : released) c_->names().Release(g.path, caller_, g.grant);
  std::vector<int> out;
  out.reserve(made.size());
  for (const MadeEntry& e : made) out.push_back(MakeOne(e));
  return out;
}

bool ChangesCachedAttributes(const MetaUpdate& u) {
  MetaUpdate rest = u;
  rest.touch_ns.reset();
  rest.subdirs.reset();
  rest.if_file_id.reset();
  return rest != MetaUpdate{};
}

Result<Metadata> CoherentView::GetMeta(const std::string& path) {
  if (!SettleRead(path)) return Status(EAGAIN, path + ": to be served where it may wait");
  Register(path);  // before the read: a change after it tells this caller
  return AskOwnIfAbsent(path, [&] { return local_->GetMeta(path); });
}

// The names are registered once read, and their entries read again after: an entry that changed
// between the first read and its registration was told to nobody, and the second read sees the
// change. Only entries of both reads are returned (each registered before it was read).
Result<DirAttrPage> CoherentView::ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) {
  c_->names().SettleBelow(dir, Store());
  BB_ASSIGN_OR_RETURN(DirAttrPage first, local_->ListAttrs(dir, start_after, limit));
  std::string base = dir == "/" ? dir : dir + "/";
  if (first.entries.empty() || !c_->Tracks(caller_, base + first.entries.front().name)) return first;
  for (const DirAttrEntry& e : first.entries) c_->Register(base + e.name, caller_);
  BB_ASSIGN_OR_RETURN(DirAttrPage second, local_->ListAttrs(dir, start_after, limit));
  DirAttrPage out;
  out.last = first.last;
  out.end = first.end;
  auto registered = first.entries.begin();
  for (DirAttrEntry& e : second.entries) {
    if (e.name > first.last) break;
    while (registered != first.entries.end() && registered->name < e.name) ++registered;
    if (registered != first.entries.end() && registered->name == e.name) out.entries.push_back(std::move(e));
  }
  return out;
}

Status CoherentView::CreateMeta(const std::string& path, const Metadata& md) {
  return Making(path, NameReservations::Intent::kMake, [&] {
    Register(path);
    return local_->CreateMeta(path, md);
  });
}

// A change registers its caller first, as a read does: its reply is cached too, and a change
// by another node right after must find the registration.
Status CoherentView::PutMeta(const std::string& path, const Metadata& md) {
  uint64_t replaced = 0;
  Status s = Making(path, NameReservations::Intent::kRead, [&] {
    Register(path);
    replaced = LinkedNameAt(path);
    return local_->PutMeta(path, md);
  });
  if (s.ok()) c_->Tell({{path, true, replaced, ""}}, caller_);
  return s;
}

Result<Metadata> CoherentView::UpdateMeta(const std::string& path, const MetaUpdate& update) {
  // A directory's entry changes, sent by any node, tell nobody and register nothing.
  SettleRead(path);
  auto update_here = [&] { return local_->UpdateMeta(path, update); };
  if (!ChangesCachedAttributes(update)) return AskOwnIfAbsent(path, update_here);
  Register(path);
  auto r = AskOwnIfAbsent(path, update_here);
  if (r) c_->Tell({{path, false}}, caller_);
  return r;
}

Result<Metadata> CoherentView::RemoveMeta(const std::string& path) {
  SettleRead(path);
  auto r = AskOwnIfAbsent(path, [&] { return local_->RemoveMeta(path); });
  // A linked file's name: the file lives on at its record, where a node holding it open follows.
  if (r) c_->Tell({{path, true, r->link == LinkRole::kName ? r->file_id : 0, ""}}, caller_);
  return r;
}

Result<Metadata> CoherentView::MoveOutMeta(const std::string& from, const std::string& to) {
  SettleRead(from);
  auto r = AskOwnIfAbsent(from, [&] { return local_->RemoveMeta(from); });
  if (r) c_->Tell({{from, true, r->file_id, to}}, caller_);
  return r;
}

Result<Metadata> CoherentView::MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) {
  SettleRead(from);
  SettleOwnLeased(from);
  uint64_t replaced = 0;
  auto r = Making(to, NameReservations::Intent::kRead, [&] {
    Register(to);
    replaced = LinkedNameAt(to);
    return local_->MoveMeta(from, to, ctime_ns);
  });
  if (r) c_->Tell({{from, true, r->file_id, to}, {to, true, replaced, ""}}, caller_);
  return r;
}

Status CoherentView::DropWorkspace(const std::string& name) {
  Status s = local_->DropWorkspace(name);
  // Every node is asked to drop it: each drops the workspace's name (and so everything below
  // it) from its own kernel.
  if (s.ok()) c_->ToKernel({{"/" + name, true}});
  return s;
}

Status CoherentView::Invalidate(const std::vector<Invalidation>& items) {
  // Everything, from another node: it started again, or missed more than it kept. Either way
  // what it reserved or leased to this node is not to be relied on.
  if (caller_ < c_->nodes() && caller_ != c_->self() &&
      std::find(items.begin(), items.end(), kDropEverything) != items.end()) {
    c_->OwnerReset(caller_);
  }
  c_->ToKernel(items);
  return Status::Ok();
}

}  // namespace bb::fs
