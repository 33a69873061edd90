// Directory operations: opendir/readdir/releasedir. Listings are paged by the core; readdir
// fills the kernel's buffer from the requested offset (offset = entry number + 1).
#include <sys/stat.h>

#include <memory>

#include "fs/fuse/adapter.h"

namespace bb::fs::adapter {

void OpenDir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi_in) {
  Admit(req, qos::Class::kMetadata, 1, [req, ino, info = *fi_in]() mutable {
    auto d = Ctx(req).fs->OpenDir(ino);
    if (!d) return ReplyError(req, d.error(), "opendir");
    info.fh = reinterpret_cast<uint64_t>(*d);
    if (fuse_reply_open(req, &info) != 0) Ctx(req).fs->ReleaseDir(*d);
  });
}

namespace {
void DoReadDir(fuse_req_t req, DirHandle* dir, size_t size, off_t off) {
  auto buf = std::make_unique<char[]>(size);
  size_t used = 0;
  for (uint64_t index = static_cast<uint64_t>(off);; ++index) {
    auto e = Ctx(req).fs->DirEntryAt(dir, index);
    if (!e) {
      if (used > 0) break;  // return what we have; the error comes with the next call
      return ReplyError(req, e.error(), "readdir");
    }
    if (!e->has_value()) break;
    const DirListing& l = **e;
    struct stat st {};
    st.st_ino = l.ino;
    st.st_mode = FileTypeBits(l.type);
    size_t need =
        fuse_add_direntry(req, buf.get() + used, size - used, l.name.c_str(), &st, static_cast<off_t>(index + 1));
    if (need > size - used) break;
    used += need;
  }
  fuse_reply_buf(req, buf.get(), used);
}
}  // namespace

void ReadDir(fuse_req_t req, fuse_ino_t, size_t size, off_t off, fuse_file_info* fi) {
  Admit(req, qos::Class::kMetadata, 1,
        [req, dir = reinterpret_cast<DirHandle*>(fi->fh), size, off] { DoReadDir(req, dir, size, off); });
}

void ReleaseDir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  Ctx(req).fs->ReleaseDir(reinterpret_cast<DirHandle*>(fi->fh));
  fuse_reply_err(req, 0);
}

void FsyncDir(fuse_req_t req, fuse_ino_t, int, fuse_file_info*) {
  // Directory entries are written to the metadata store at once; nothing is pending here.
  fuse_reply_err(req, 0);
}

}  // namespace bb::fs::adapter
