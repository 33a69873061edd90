// Hard links of the core. A file gets a link record (fs/store/metadata.h) at its second name:
// from then on its attributes and its count of names live there, every name is an entry of
// role kName, and the inode's path is the record's, so that attribute reads and updates reach
// the record without a second look-up. A name is followed to the record by whoever reads it
// (Lookup, FreshMeta) or updates it (UpdateAttributes); the record outlives the file's last
// name only while the file is open on some node.
//
// Races between nodes, on purpose cheap: a name is made before the count that covers it and
// removed before the count drops, so a count is never short of the names a reader can find; a
// file linked from two nodes at once gets one record (the second node's create finds it and
// counts its name). A first link racing a rename of the same file on another node may leave the
// old entry where the rename put it, beside the record: both still name the same data.
#include <algorithm>

#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/path.h"

namespace bb::fs {

std::string FileSystem::RecordPathOf(const std::string& path, uint64_t file_id) const {
  std::string domain = router_->Resolve(path).domain;
  return LinkRecordPath(domain.empty() ? "/" : "/" + domain, file_id);
}

Result<Metadata> FileSystem::FollowName(const std::string& name_path, Metadata md, std::string* path_out) {
  if (md.link != LinkRole::kName) return md;
  std::string record = RecordPathOf(name_path, md.file_id);
  BB_ASSIGN_OR_RETURN(md, MetaOwner(record)->GetMeta(record));
  if (path_out) *path_out = record;
  return md;
}

void FileSystem::MoveToRecord(const std::shared_ptr<Inode>& inode, const std::string& record) {
  std::lock_guard lock(table_mu_);
  SetPathLocked(*inode, record);
}

Result<Metadata> FileSystem::UpdateAttributes(const std::shared_ptr<Inode>& inode, const std::string& path,
                                              MetaUpdate u) {
  u.if_file_id = inode->ino;
  auto updated = MetaOwner(path)->UpdateMeta(path, u);
  Changed(path);
  if (updated || updated.error().code() != ESTALE) return updated;
  // Not the file's own entry: a name of it, linked since this node learnt its path (the update
  // belongs to the record), or another file's.
  auto md = MetaOwner(path)->GetMeta(path);
  if (!md || md->file_id != inode->ino || md->link != LinkRole::kName) {
    return Status(ENOENT, path + ": the file was removed or replaced by another node");
  }
  std::string record = RecordPathOf(path, md->file_id);
  MoveToRecord(inode, record);
  auto rec = MetaOwner(record)->UpdateMeta(record, u);
  Changed(record);
  return rec;
}

Status FileSystem::DropName(const std::string& path, const Metadata& name) {
  std::string record = RecordPathOf(path, name.file_id);
  MetaUpdate u;
  u.links = -1;
  u.ctime_ns = clock_->WallNs();
  NodeService* owner = MetaOwner(record);
  auto md = owner->UpdateMeta(record, u);
  Stale(record);  // its count moved: not what this node cached
  Changed(record);
  if (!md) return md.error().code() == ENOENT ? Status::Ok() : md.error();
  // Names left: every node reads the count from the record when it next asks. A descriptor open
  // here by the removed name follows the file to its record, as the name's owner tells other
  // nodes to (Invalidation::file_id); it may have learnt the name before another node linked it.
  if (md->nlink > 0) {
    std::lock_guard lock(table_mu_);
    FollowLocked(name.file_id, path, record);
    return Status::Ok();
  }
  // The last name is gone: the record and the data go as an unlinked file's would.
  auto removed = owner->RemoveMeta(record);
  if (!removed) return removed.error().code() == ENOENT ? Status::Ok() : removed.error();
  return DropEntryData(*removed, record);
}

// The second name of a file with attributes in its entry at `path`: the record takes them, with
// two names, and the entry becomes a name. Returns the record.
Result<Metadata> FileSystem::MakeRecord(const std::shared_ptr<Inode>& inode, const std::string& path,
                                        const Metadata& md) {
  std::string record = RecordPathOf(path, md.file_id);
  Metadata rec = md;
  rec.link = LinkRole::kRecord;
  rec.nlink = 2;
  rec.ctime_ns = clock_->WallNs();
  NodeService* owner = MetaOwner(record);
  Status s = owner->CreateMeta(record, rec);
  const bool made = s.ok();
  if (s.code() == EEXIST) {
    // Another node linked the file meanwhile: count this name in its record.
    MetaUpdate more;
    more.links = 1;
    more.ctime_ns = rec.ctime_ns;
    BB_ASSIGN_OR_RETURN(rec, owner->UpdateMeta(record, more));
  } else if (!s.ok()) {
    return s;
  }
  MetaUpdate flip;
  flip.link_role = LinkRole::kName;
  auto old = MetaOwner(path)->UpdateMeta(path, flip);
  if (!old) {
    // Made a name all the same (the answer was lost): go on. Not: the first name went away, or its
    // store refused, and the record does not count it (one made here goes, as a removal is never
    // refused for space; when the entry cannot be read, it is counted down).
    auto now = MetaOwner(path)->GetMeta(path);
    if (now && now->file_id == md.file_id && now->link == LinkRole::kName) {
      old = std::move(now);
    } else {
      const bool unnamed = now ? now->file_id == md.file_id : now.error().code() == ENOENT;
      MetaUpdate fewer;
      fewer.links = -1;
      (void)(made && unnamed ? owner->RemoveMeta(record).status() : owner->UpdateMeta(record, fewer).status());
      return old.error();
    }
  }
  MoveToRecord(inode, record);
  if (old->size > rec.size || old->mtime_ns > rec.mtime_ns) {
    // A size published to the entry between the read and the flip.
    MetaUpdate grow;
    grow.grow_to = old->size;
    grow.mtime_ns = old->mtime_ns;
    BB_ASSIGN_OR_RETURN(rec, owner->UpdateMeta(record, grow));
  }
  return rec;
}

Result<Entry> FileSystem::Link(uint64_t ino, uint64_t new_parent, const std::string& new_name) {
  Count(FsOp::kLink);
  BB_ASSIGN_OR_RETURN(auto inode, FindInode(ino));
  bool unlinked = false;
  std::string path;
  BB_ASSIGN_OR_RETURN(Metadata md, FreshMeta(inode, &unlinked, &path));
  if (unlinked) return Status(ENOENT, "link of a removed file");
  if (md.type == FileType::kDirectory) return Status(EPERM, "hard link of a directory");
  BB_ASSIGN_OR_RETURN(std::string to, ChildPath(new_parent, new_name));
  PathLayout layout = router_->Resolve(to);
  if (layout.replicated) return Status(EEXIST, to);
  if (router_->Resolve(path).domain != layout.domain) {
    return Status(EXDEV, "hard link between workspaces: " + to);
  }
  if (md.link == LinkRole::kRecord && md.nlink >= kLinkMax) return Status(EMLINK, path);
  // The name first: it fails alone (EEXIST, ENOENT parent) with nothing to undo.
  Metadata name = md;
  name.link = LinkRole::kName;
  name.nlink = 0;
  auto making = MakingName(to, layout);
  BB_RETURN_IF_ERROR(MakingAtOwner(to));  // the lookup before a link may have reserved the name
  BB_RETURN_IF_ERROR(MetaOwner(layout, to)->CreateMeta(to, name));
  auto counted = [&]() -> Result<Metadata> {
    if (md.link != LinkRole::kRecord) return MakeRecord(inode, path, md);
    MetaUpdate more;
    more.links = 1;
    more.ctime_ns = clock_->WallNs();
    BB_ASSIGN_OR_RETURN(Metadata r, MetaOwner(path)->UpdateMeta(path, more));
    if (r.nlink <= 1) return Status(ENOENT, "link of a removed file");  // its last name went meanwhile
    return r;
  };
  Result<Metadata> rec = counted();
  if (!rec) {
    (void)MetaOwner(layout, to)->RemoveMeta(to);
    return rec.error();
  }
  NoteDirChange(to, 0);
  Changed(path);  // now a name of the record, or counted in it
  std::string record = RecordPathOf(path, md.file_id);
  Entry e = Remember(record, *rec);
  std::lock_guard lock(inode->mu);
  inode->meta = *rec;
  if (inode->size_dirty) e.md.size = std::max(e.md.size, inode->size);
  return e;
}

}  // namespace bb::fs
