// Rename's moves of entries between names: one entry within one owner or across two, and a
// directory with everything below it (MoveTree).
#include <algorithm>
#include <optional>
#include <vector>

#include "fs/core/data/fan_out.h"
#include "fs/core/file_system.h"
#include "fs/core/ops/inode.h"
#include "fs/core/placement/path.h"

namespace bb::fs {
namespace {

constexpr uint32_t kTreePage = 1024;  // entries listed at a time while a tree moves
// Full listings of one directory that still found entries: past them, names keep being made in
// it faster than they move (EBUSY; nothing is lost, both names keep what each holds).
constexpr int kTreePasses = 16;

}  // namespace

Result<Metadata> FileSystem::MoveAcross(NodeService* from_owner, NodeService* to_owner, const std::string& from,
                                        const std::string& to, const Metadata& src, const Metadata* dst, bool fresh) {
  // Not atomic across nodes: the entry exists at both names for a moment, never at neither.
  BB_RETURN_IF_ERROR(fresh ? to_owner->CreateMeta(to, src) : to_owner->PutMeta(to, src));
  auto moved = from_owner->MoveOutMeta(from, to);
  if (moved) return moved;
  // Not there (its owner's answer): another node removed or moved it since it was read, and that
  // stands; `to` is put back as it was, or the file would live on at `to` (without its data, or
  // under two names). Otherwise where the file is now decides. Still at `from` (its store
  // refused, full or failing): `to` is put back, or the one file would keep two names, each
  // counted as its only one. Gone from there (the answer was lost): moved. Not known (its owner
  // unreachable): both names stay, the file never at neither.
  if (moved.error().code() != ENOENT) {
    auto left = from_owner->GetMeta(from);
    if (!left && left.error().code() == ENOENT) return src;
    if (!left || left->file_id != src.file_id) return moved.error();
  }
  Status undo = dst ? to_owner->PutMeta(to, *dst) : to_owner->RemoveMeta(to).status();
  Changed(to);
  return undo.ok() ? moved.error() : moved.error().Annotate("and " + to + " could not be put back");
}

void FileSystem::FollowRename(const Metadata& src, const std::string& from, const std::string& to) {
  std::lock_guard lock(table_mu_);
  // A linked file's inode keeps its record's path; one this node knew by the moved name only
  // (linked elsewhere since) takes it now, so that nothing later made at `from` is read as it.
  if (src.link == LinkRole::kName) return FollowLocked(src.file_id, from, RecordPathOf(from, src.file_id));
  auto it = inodes_.find(src.file_id);
  if (it != inodes_.end()) SetPathLocked(*it->second, to);
}

// Entries are keyed by path, so every entry below `from` moves to its path below `to`: the
// directory's entry is put at `to` first and taken from `from` last, and each entry below is
// made at its new path before it goes from its old one. While it runs, and after a failure, an
// entry is under one name or the other (a directory, under both), never under neither; the same
// rename again goes on where the failed one stopped.
Result<Metadata> FileSystem::MoveTree(const PathLayout& layout, const std::string& from, const std::string& to,
                                      int64_t ctime_ns, const Metadata* dst) {
  auto moved = MoveTreeEntries(layout, from, to, ctime_ns, dst);
  if (!moved) {
    // Part of the tree may be under each name now, which this node's kernel does not know (the
    // other nodes were told entry by entry): it drops both names and what it holds below them.
    Changed(from, true);
    Changed(to, true);
    if (own_kernel_) own_kernel_({{from, true}, {to, true}});
    // The directory made at `to` (the same as at `from`) counts in its parent from now on.
    if (!dst) {
      auto at_to = MetaOwner(layout, to)->GetMeta(to);
      auto at_from = MetaOwner(layout, from)->GetMeta(from);
      if (at_to && at_from && at_to->file_id == at_from->file_id) NoteDirChange(to, 1);
    }
  }
  return moved;
}

Result<Metadata> FileSystem::MoveTreeEntries(const PathLayout& layout, const std::string& from, const std::string& to,
                                             int64_t ctime_ns, const Metadata* dst) {
  // This node's counts and times of directories below reach their entries before those move,
  // and the directory is read after them.
  SendDirChanges();
  BB_ASSIGN_OR_RETURN(Metadata dir, MetaOwner(layout, from)->GetMeta(from));
  dir.ctime_ns = std::max(dir.ctime_ns, ctime_ns);
  // Over an empty directory, or over the same one (a rename that stopped halfway), else only where
  // no entry is: one another node made at `to` since it was found absent is never replaced.
  NodeService* to_owner = MetaOwner(layout, to);
  Status put = dst ? to_owner->PutMeta(to, dir) : to_owner->CreateMeta(to, dir);
  if (put.code() == EEXIST) return Status(EBUSY, to + " was made while " + from + " moved there");
  BB_RETURN_IF_ERROR(put);
  BB_RETURN_IF_ERROR(MoveDirectory(layout, from, to, dir, dst && dst->file_id == dir.file_id, true));
  return dir;
}

Status FileSystem::MoveDirectory(const PathLayout& layout, const std::string& from, const std::string& to,
                                 const Metadata& put, bool resumed, bool top) {
  int64_t subdirs = 0;  // directories in `to`: moved there before (a resumed move), and now
  if (resumed) {
    BB_ASSIGN_OR_RETURN(subdirs, CountSubdirs(layout, to));
  }
  BB_ASSIGN_OR_RETURN(int64_t moved, MoveEntriesBelow(layout, from, to));
  subdirs += moved;
  auto gone = MetaOwner(layout, from)->MoveOutMeta(from, to);
  if (!gone && gone.error().code() != ENOENT) return gone.error();
  // Gone already: another node moved or removed it (a rename of the same tree at once).
  if (!gone && top) return Status(ENOENT, from + " was moved or removed by another node while it moved");
  // Names made in `from` after its last listing, before its entry went (told to every node by
  // now, so none is made there after), move too.
  BB_ASSIGN_OR_RETURN(int64_t late, MoveEntriesBelow(layout, from, to));
  subdirs += late;
  // A count another node had not sent yet went to `from`, or was dropped with it: `to` counts
  // what it holds (changes sent to it meanwhile stay counted).
  if (subdirs != int64_t{put.subdirs}) {
    MetaUpdate u;
    u.subdirs = static_cast<int32_t>(subdirs - int64_t{put.subdirs});
    (void)MetaOwner(layout, to)->UpdateMeta(to, u);
  }
  return Status::Ok();
}

Result<int64_t> FileSystem::CountSubdirs(const PathLayout& layout, const std::string& dir) {
  int64_t count = 0;
  for (NodeId n : layout.DirNodes()) {
    std::string after;
    for (;;) {
      BB_ASSIGN_OR_RETURN(DirPage page, ListService(n)->ListDir(dir, after, kTreePage));
      for (const DirEntry& e : page.entries) count += e.type == FileType::kDirectory;
      if (page.end || page.entries.empty()) break;
      after = page.entries.back().name;
    }
  }
  return count;
}

Result<int64_t> FileSystem::MoveEntriesBelow(const PathLayout& layout, const std::string& from, const std::string& to) {
  int64_t subdirs = 0;  // directories moved into `to`
  int idle = 0;         // pages in a row of which nothing moved, each starting at the same name
  std::string idle_at;
  for (int pass = 0;; ++pass) {
    bool found = false;
    for (NodeId n : layout.DirNodes()) {
      // What moved is gone from `from`: each listing starts at what is left.
      for (;;) {
        BB_ASSIGN_OR_RETURN(DirPage page, ListService(n)->ListDir(from, "", kTreePage));
        if (page.entries.empty()) break;
        found = true;
        // The entries of a page move at the same time (each is independent of the others).
        std::vector<std::optional<FileType>> done(page.entries.size());
        std::vector<FanOut::Task> tasks;
        tasks.reserve(page.entries.size());
        for (size_t i = 0; i < page.entries.size(); ++i) {
          tasks.push_back([&, i]() -> Status {
            BB_ASSIGN_OR_RETURN(std::string at, JoinPath(from, page.entries[i].name));
            BB_ASSIGN_OR_RETURN(std::string dest, JoinPath(to, page.entries[i].name));
            BB_ASSIGN_OR_RETURN(done[i], MoveEntryBelow(layout, at, dest));
            return Status::Ok();
          });
        }
        BB_RETURN_IF_ERROR(fan_out_->Run(tasks));
        bool moved = false;
        for (const std::optional<FileType>& d : done) {
          moved = moved || d.has_value();
          subdirs += d == FileType::kDirectory;
        }
        // Listed again and again but found by none of their owners (not removed meanwhile, which
        // lists them no more): listing once more would find them once more.
        idle = moved ? 0 : page.entries.front().name == idle_at ? idle + 1 : 1;
        idle_at = page.entries.front().name;
        if (idle > 2) return Status(EIO, "entries listed in " + from + " were not found to move");
        if (page.end) break;
      }
    }
    if (!found) return subdirs;
    if (pass + 1 >= kTreePasses) return Status(EBUSY, "entries keep being made in " + from + " while it moves");
  }
}

Result<std::optional<FileType>> FileSystem::MoveEntryBelow(const PathLayout& layout, const std::string& from,
                                                           const std::string& to) {
  NodeService* from_owner = MetaOwner(layout, from);
  NodeService* to_owner = MetaOwner(layout, to);
  auto md = from_owner->GetMeta(from);
  if (!md) {
    if (md.error().code() == ENOENT) return std::optional<FileType>();  // removed meanwhile
    return md.error();
  }
  // Made at its new path only where no entry is: one made there meanwhile is never replaced.
  auto made_meanwhile = [&](Status s) {
    return s.code() == EEXIST ? Status(EBUSY, to + " was made while its directory moved there") : s;
  };
  Metadata moved = *md;
  if (md->type == FileType::kDirectory) {
    Status put = to_owner->CreateMeta(to, *md);
    // There already as the same directory: moved there by a rename that stopped halfway.
    bool resumed = false;
    if (put.code() == EEXIST) {
      auto there = to_owner->GetMeta(to);
      resumed = there && there->file_id == md->file_id;
    }
    if (!put.ok() && !resumed) return made_meanwhile(put);
    BB_RETURN_IF_ERROR(MoveDirectory(layout, from, to, *md, resumed, false));
  } else {
    auto across = MoveAcross(from_owner, to_owner, from, to, *md, nullptr, /*fresh=*/true);
    if (!across && across.error().code() == ENOENT) return std::optional<FileType>();  // removed meanwhile
    if (!across) return made_meanwhile(across.error());
    moved = std::move(*across);
    // Changed by another node between the read and the removal (a size published, a chmod): the
    // entry at the new name takes what the old one held last.
    if (!(moved == *md)) BB_RETURN_IF_ERROR(to_owner->PutMeta(to, moved));
  }
  FollowRename(moved, from, to);
  if (profiles_.active() && moved.type != FileType::kDirectory) {
    profiles_.Renamed(layout.domain, from, to, moved.file_id, clock_->WallNs());
  }
  return std::optional<FileType>(moved.type);
}

}  // namespace bb::fs
