// What this node caches of other nodes' metadata, and what its kernel may hold: the inode at
// each path, attributes fresh from their owners (FileSystemOptions::attr_cache_ns), and the
// invalidations those owners told (fs/core/coherence/coherence.h).
#include <algorithm>
#include <optional>

#include "fs/core/coherence/coherence.h"
#include "fs/core/data/fan_out.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/path.h"

namespace bb::fs {

Result<Metadata> FileSystem::CachedMeta(const std::shared_ptr<Inode>& inode, bool* unlinked_out,
                                        std::string* path_out) {
  if (options_.attr_cache_ns > 0) {
    auto [path, unlinked] = NameOf(*inode);
    std::lock_guard lock(inode->mu);
    if (!unlinked && clock_->MonotonicNs() < inode->fresh_until_ns) {
      if (unlinked_out) *unlinked_out = false;
      if (path_out) *path_out = path;
      Metadata md = inode->meta;
      OverlayUnpublished(*inode, &md);
      return md;
    }
  }
  return FreshMeta(inode, unlinked_out, path_out);
}

Result<Metadata> FileSystem::FreshMeta(const std::shared_ptr<Inode>& inode, bool* unlinked_out, std::string* path_out) {
  auto [path, unlinked] = NameOf(*inode);
  if (unlinked_out) *unlinked_out = unlinked;
  if (path_out) *path_out = path;
  const MetaAsk ask = AskMeta();
  uint64_t since = ToldSeq();
  // This node's writes unpublished when the read is sent: one published while it is on its way
  // (a size sent with its chunk, answered meanwhile) may reach the owner after the read.
  Metadata unpublished;
  {
    std::lock_guard lock(inode->mu);
    OverlayUnpublished(*inode, &unpublished);
  }
  Metadata md;
  if (unlinked) {
    std::lock_guard lock(inode->mu);
    md = inode->meta;
  } else {
    auto read = MetaOwner(path)->GetMeta(path);
    if (!read && read.error().code() == ENOENT) return Detached(inode, path);  // moved or removed elsewhere
    BB_ASSIGN_OR_RETURN(md, std::move(read));
    if (md.link == LinkRole::kName && md.file_id == inode->ino) {  // linked since this node learnt the path
      std::string record;
      BB_ASSIGN_OR_RETURN(md, FollowName(path, md, &record));
      MoveToRecord(inode, record);
      path = record;
      if (path_out) *path_out = path;
    }
    if (md.file_id != inode->ino) return Detached(inode, path);
  }
  // Writes of this node not yet published are part of the file.
  std::lock_guard lock(inode->mu);
  OverlayUnpublished(*inode, &md);
  if (!unlinked) {
    bool told = ToldSince(path, since);  // a change may have raced the read
    TakeMeta(*inode, md, ask, &told);
  }
  // The answer includes them, but this node's copy keeps what the owner said: a truncate here
  // that raced the read may have cut them since.
  md.size = std::max(md.size, unpublished.size);
  md.mtime_ns = std::max(md.mtime_ns, unpublished.mtime_ns);
  md.ctime_ns = std::max(md.ctime_ns, unpublished.ctime_ns);
  return md;
}

void FileSystem::RenewOpenCallbacks() {
  std::vector<std::shared_ptr<Inode>> open;
  {
    std::lock_guard lock(table_mu_);
    for (const auto& [ino, inode] : inodes_) {
      if (inode->open_count > 0 && !inode->unlinked && !inode->node_private.load(std::memory_order_relaxed)) {
        open.push_back(inode);
      }
    }
  }
  const int64_t soon = clock_->MonotonicNs() + options_.attr_cache_ns / 2;
  for (const std::shared_ptr<Inode>& inode : open) {
    {
      std::lock_guard lock(inode->mu);
      if (inode->fresh_until_ns > soon) continue;
    }
    (void)FreshMeta(inode);  // registers this node for the name at its owner, as a getattr does
  }
}

void FileSystem::OverlayUnpublished(const Inode& inode, Metadata* md) {
  if (!inode.size_dirty) return;
  md->size = std::max(md->size, inode.size);
  md->mtime_ns = std::max(md->mtime_ns, inode.dirty_mtime_ns);
  md->ctime_ns = std::max(md->ctime_ns, inode.dirty_mtime_ns);
}

void FileSystem::MarkFresh(Inode& inode, int64_t asked_ns, bool told) const {
  if (options_.attr_cache_ns <= 0 || told) return;
  int64_t fresh = options_.attr_cache_ns;
  if (inode.meta.type == FileType::kDirectory) fresh = std::min(fresh, options_.dir_attr_cache_ns);
  inode.fresh_until_ns = asked_ns + fresh;
}

void FileSystem::TakeMeta(Inode& inode, const Metadata& md, const MetaAsk& ask, bool* told) const {
  const bool overlapped = ask.ticket <= inode.change_came;
  inode.meta = md;
  if (ask.change) inode.change_came = meta_tickets_.load();
  if (overlapped) {
    *told = true;
    inode.fresh_until_ns = 0;
  } else {
    MarkFresh(inode, ask.ns, *told);
  }
}

Status FileSystem::ChangeUnanswered(Inode& inode, Status failed) const {
  inode.change_came = meta_tickets_.load();
  inode.fresh_until_ns = 0;
  return failed;
}

Status FileSystem::RemovalUnanswered(const std::string& path, Status failed) {
  Changed(path);
  std::shared_ptr<Inode> inode = InodeAt(path);
  if (!inode) return failed;
  std::lock_guard lock(inode->mu);
  return ChangeUnanswered(*inode, std::move(failed));
}

void FileSystem::BoundDirAttributes(const Inode& inode, Entry* e) const {
  if (options_.attr_cache_ns <= 0 || e->node_private || e->md.type != FileType::kDirectory) return;
  e->attr_left_ns = std::max<int64_t>(0, inode.fresh_until_ns - clock_->MonotonicNs());
}

Result<Metadata> FileSystem::LookupMeta(const std::string& path, const PathLayout& layout, int64_t* asked_ns,
                                        bool* ahead, pid_t pid) {
  *asked_ns = clock_->MonotonicNs();
  *ahead = false;
  if (auto hit = statahead_.Take(path, *asked_ns)) {
    *asked_ns = hit->asked_ns;
    *ahead = true;
    return std::move(hit->md);
  }
  // A name reserved for this node is absent, or holds the entry made here, until its owner asks
  // for it back (which takes the reservation): answered without asking, and as fresh as a
  // read-ahead (no read-ahead of its own).
  Metadata made;
  switch (deferred_->Find(path, &made)) {
    case DeferredCreates::Known::kAbsent:
      return Status(ENOENT, path);
    case DeferredCreates::Known::kMade:
      *ahead = true;
      return made;
    case DeferredCreates::Known::kNothing:
      break;
  }
  // Only a lookup that goes to the owner asks whether the process is a stream (not one that the
  // kernel's read-ahead or this node answers).
  if (!Reserves(path, layout, pid)) return MetaOwner(layout, path)->GetMeta(path);
  deferred_->Asking(path);
  if (uint64_t grant = LeasedAbsent(path, layout)) {
    deferred_->Granted(path, layout.MetaNode(path), grant);  // void when the lease was asked back meanwhile
    return Status(ENOENT, path);
  }
  auto found = MetaOwner(layout, path)->ReserveName(path);
  if (!found || found->entry || found->grant == 0) {
    deferred_->Refused(path);
    if (!found) return found.error();
    if (found->entry) return std::move(*found->entry);
    return Status(ENOENT, path);
  }
  deferred_->Granted(path, layout.MetaNode(path), found->grant);
  return Status(ENOENT, path);
}

uint64_t FileSystem::LeasedAbsent(const std::string& path, const PathLayout& layout) {
  if (!options_.dir_leases) return 0;
  const std::string dir(ParentPath(path));
  const std::string name(BaseName(path));
  const NodeId owner = layout.MetaNode(path);
  const int64_t now = clock_->MonotonicNs();
  DirLeases::Use use = leases_.Absent(dir, owner, name, now);
  if (!use.ask) return use.grant;
  // Taken before the request: an entry stored meanwhile is in the owner's list. A renewal knows
  // them already (they were known when the lease was given, or made since).
  std::vector<std::string> waiting = use.renew != 0 ? std::vector<std::string>{} : deferred_->Waiting(dir, owner);
  auto lease = MetaOwner(layout, path)->LeaseDir(dir, use.renew);
  if (!lease) {
    leases_.Refused(dir, owner, now);
    return 0;
  }
  leases_.Granted(dir, owner, now, *lease, waiting);
  return leases_.Absent(dir, owner, name, now, /*may_ask=*/false).grant;
}

std::vector<MadeEntry> FileSystem::HandOverDir(const std::string& dir, NodeId owner) {
  leases_.Recalled(dir, owner, clock_->MonotonicNs());  // first: no name is taken by it from now on
  return deferred_->HandOverDir(dir, owner);
}

void FileSystem::OwnerReset(NodeId owner) {
  leases_.Forget(owner);
  deferred_->ForgetRights(owner);
}

void FileSystem::ReadAhead(const std::string& path, const PathLayout& layout) {
  if (!statahead_.enabled() || layout.replicated || layout.node_private()) return;
  const std::vector<NodeId> nodes = layout.DirNodes();
  if (nodes.empty() || (nodes.size() == 1 && nodes[0] == self_)) return;  // every lookup is local already
  const std::string dir(ParentPath(path));
  auto plan = statahead_.Missed(dir, clock_->MonotonicNs());
  if (!plan) return;
  const uint32_t limit = std::max<uint32_t>(64, statahead_.window() / static_cast<uint32_t>(nodes.size()));
  const int64_t asked_ns = clock_->MonotonicNs();
  std::vector<DirAttrPage> pages(nodes.size());
  std::vector<FanOut::Task> tasks;
  for (size_t i = 0; i < nodes.size(); ++i) {
    tasks.emplace_back([&, i]() -> Status {
      BB_ASSIGN_OR_RETURN(pages[i], ListService(nodes[i])->ListAttrs(dir, plan->start_after, limit));
      return Status::Ok();
    });
  }
  if (!fan_out_->Run(tasks).ok()) return statahead_.Abandon(*plan);
  // Names up to the least `last` of the pages that did not end are complete: the next window
  // starts there (the entries past it that other pages brought are kept all the same).
  std::optional<std::string> next;
  std::vector<std::pair<std::string, Metadata>> entries;
  const std::string base = dir == "/" ? dir : dir + "/";
  for (DirAttrPage& page : pages) {
    if (!page.end && (!next || page.last < *next)) next = page.last;
    for (DirAttrEntry& e : page.entries) {
      if (e.md.link == LinkRole::kName) continue;  // its attributes are its record's
      entries.emplace_back(base + e.name, std::move(e.md));
    }
  }
  statahead_.Fill(*plan, std::move(entries), asked_ns, next.value_or(std::string()));
}

std::shared_ptr<Inode> FileSystem::InodeAt(const std::string& path) const {
  std::lock_guard lock(table_mu_);
  auto it = by_path_.find(path);
  if (it == by_path_.end()) return nullptr;
  auto in = inodes_.find(it->second);
  return in == inodes_.end() ? nullptr : in->second;
}

void FileSystem::Stale(const std::string& path) {
  std::shared_ptr<Inode> inode = InodeAt(path);
  if (!inode) return;
  std::lock_guard lock(inode->mu);
  inode->fresh_until_ns = 0;
}

void FileSystem::AppliedToCached(const std::string& path, const MetaUpdate& u) {
  std::shared_ptr<Inode> inode = InodeAt(path);
  if (!inode) return;
  std::lock_guard lock(inode->mu);
  if (clock_->MonotonicNs() < inode->fresh_until_ns) ApplyUpdate(u, &inode->meta);
}

std::vector<std::string> FileSystem::KnownPaths() const {
  std::lock_guard lock(table_mu_);
  std::vector<std::string> paths;
  paths.reserve(by_path_.size());
  for (const auto& [path, ino] : by_path_) paths.push_back(path);
  return paths;
}

void FileSystem::Invalidated(const std::vector<Invalidation>& items) {
  {
    // A file known here by a name that moved, or by a name of a linked file that went: its inode
    // takes where the file is now, so that a descriptor open here writes on (its sizes go there).
    std::lock_guard lock(table_mu_);
    for (const Invalidation& item : items) {
      if (item.file_id == 0) continue;
      FollowLocked(item.file_id, item.path,
                   item.moved_to.empty() ? RecordPathOf(item.path, item.file_id) : item.moved_to);
    }
  }
  // Statahead first: a lookup that takes an entry after this is told (ToldSince) below, one that
  // took it before finds the change told when it checks.
  for (const Invalidation& item : items) Changed(item.path, item.entry);  // a name: and below it
  if (std::find(items.begin(), items.end(), kDropEverything) != items.end()) {
    // More was missed than its owner kept: nothing cached here is trusted any more (statahead
    // dropped everything above).
    std::vector<std::shared_ptr<Inode>> all;
    {
      std::lock_guard lock(table_mu_);
      for (const auto& [ino, inode] : inodes_) all.push_back(inode);
    }
    for (const auto& inode : all) {
      std::lock_guard lock(inode->mu);
      inode->fresh_until_ns = 0;
    }
  }
  constexpr size_t kToldWindow = 4096;
  {
    std::lock_guard lock(told_mu_);
    for (const Invalidation& item : items) {
      told_.emplace_back(told_seq_.load(std::memory_order_relaxed) + 1, item.path);
      told_seq_.fetch_add(1, std::memory_order_release);
      if (told_.size() > kToldWindow) told_.pop_front();
    }
  }
  for (const Invalidation& item : items) Stale(item.path);
}

bool FileSystem::ToldSince(const std::string& path, uint64_t since) const {
  if (told_seq_.load(std::memory_order_acquire) == since) return false;
  std::lock_guard lock(told_mu_);
  if (told_.empty() || told_.front().first > since + 1) return true;  // past the window
  for (auto it = told_.rbegin(); it != told_.rend() && it->first > since; ++it) {
    if (it->second == path || it->second == "/") return true;  // "/": the root, or everything
  }
  return false;
}

Metadata FileSystem::Detached(const std::shared_ptr<Inode>& inode, const std::string& path) {
  {
    std::lock_guard lock(table_mu_);
    if (inode->path == path) ErasePathLocked(*inode);  // a lookup of `path` finds the file there now
  }
  std::lock_guard lock(inode->mu);
  inode->fresh_until_ns = 0;
  Metadata md = inode->meta;
  OverlayUnpublished(*inode, &md);
  return md;
}

void FileSystem::SetPathLocked(Inode& inode, const std::string& path) {
  if (inode.path != path) {
    ErasePathLocked(inode);
    inode.path = path;
  }
  by_path_[path] = inode.ino;  // also when another inode had the path since
}

void FileSystem::FollowLocked(uint64_t file_id, const std::string& from, const std::string& to) {
  auto it = inodes_.find(file_id);
  if (it != inodes_.end() && it->second->path == from) SetPathLocked(*it->second, to);
}

void FileSystem::ErasePathLocked(const Inode& inode) {
  auto it = by_path_.find(inode.path);
  if (it != by_path_.end() && it->second == inode.ino) by_path_.erase(it);
}

KernelInodes FileSystem::KernelInodesOf(const std::string& path) const {
  KernelInodes k;
  std::lock_guard lock(table_mu_);
  if (auto it = by_path_.find(path); it != by_path_.end()) k.ino = it->second;
  if (path != "/") {
    if (auto it = by_path_.find(std::string(ParentPath(path))); it != by_path_.end()) k.parent = it->second;
  }
  return k;
}

}  // namespace bb::fs
