// Entry and attribute operations: lookup, getattr/setattr, create/remove/rename of names.
#include <sys/stat.h>

#include <cerrno>

#include "fs/fuse/adapter.h"

namespace bb::fs::adapter {

constexpr auto kMeta = qos::Class::kMetadata;

void Lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Admit(req, kMeta, 1, [req, parent, name = std::string(name)] {
    auto e = Ctx(req).fs->Lookup(parent, name, CallerOf(req).pid);
    // A name that does not exist is the answer to a question (every create asks it first), not
    // a failure: it is neither counted among the errors nor logged.
    if (!e && e.error().code() == ENOENT) return (void)fuse_reply_err(req, ENOENT);
    if (!e) return ReplyError(req, e.error(), "lookup");
    ReplyEntry(req, *e);
  });
}

void Forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  Ctx(req).fs->Forget(ino, nlookup);
  fuse_reply_none(req);
}

void ForgetMulti(fuse_req_t req, size_t count, fuse_forget_data* forgets) {
  for (size_t i = 0; i < count; ++i) Ctx(req).fs->Forget(forgets[i].ino, forgets[i].nlookup);
  fuse_reply_none(req);
}

void GetAttr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  Admit(req, kMeta, 1, [req, ino] {
    auto e = Ctx(req).fs->GetAttr(ino);
    if (!e) return ReplyError(req, e.error(), "getattr");
    ReplyAttr(req, *e);
  });
}

void SetAttr(fuse_req_t req, fuse_ino_t ino, struct stat* attr, int to_set, fuse_file_info* fi) {
  SetAttrRequest r;
  if (to_set & FUSE_SET_ATTR_MODE) r.mode = attr->st_mode & 07777;
  if (to_set & FUSE_SET_ATTR_UID) r.uid = attr->st_uid;
  if (to_set & FUSE_SET_ATTR_GID) r.gid = attr->st_gid;
  if (to_set & FUSE_SET_ATTR_SIZE) r.size = static_cast<uint64_t>(attr->st_size);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; };
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  if (to_set & FUSE_SET_ATTR_ATIME_NOW)
    r.atime_ns = ns(now);
  else if (to_set & FUSE_SET_ATTR_ATIME)
    r.atime_ns = ns(attr->st_atim);
  if (to_set & FUSE_SET_ATTR_MTIME_NOW)
    r.mtime_ns = ns(now);
  else if (to_set & FUSE_SET_ATTR_MTIME)
    r.mtime_ns = ns(attr->st_mtim);
  Admit(req, kMeta, 1, [req, ino, r, file = fi ? FileHandle(fi) : nullptr] {
    auto e = Ctx(req).fs->SetAttr(ino, r, file);
    if (!e) return ReplyError(req, e.error(), "setattr");
    ReplyAttr(req, *e);
  });
}

void Readlink(fuse_req_t req, fuse_ino_t ino) {
  Admit(req, kMeta, 1, [req, ino] {
    auto target = Ctx(req).fs->Readlink(ino);
    if (!target) return ReplyError(req, target.error(), "readlink");
    fuse_reply_readlink(req, target->c_str());
  });
}

void Mknod(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode, dev_t rdev) {
  Admit(req, kMeta, 1, [req, parent, name = std::string(name), mode, rdev, held = Ctx(req).calls.Of(parent)] {
    auto e = Ctx(req).fs->Mknod(parent, name, mode, rdev, CallerOf(req));
    if (!e) return ReplyError(req, e.error(), "mknod");
    ReplyEntry(req, *e);
  });
}

void Mkdir(fuse_req_t req, fuse_ino_t parent, const char* name, mode_t mode) {
  Admit(req, kMeta, 1, [req, parent, name = std::string(name), mode, held = Ctx(req).calls.Of(parent)] {
    auto e = Ctx(req).fs->Mkdir(parent, name, mode, CallerOf(req));
    if (!e) return ReplyError(req, e.error(), "mkdir");
    ReplyEntry(req, *e);
  });
}

void Unlink(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Admit(req, kMeta, 1, [req, parent, name = std::string(name), held = Ctx(req).calls.Of(parent)] {
    Status s = Ctx(req).fs->Unlink(parent, name);
    if (!s.ok()) return ReplyError(req, s, "unlink");
    fuse_reply_err(req, 0);
  });
}

void Rmdir(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Admit(req, kMeta, 1, [req, parent, name = std::string(name), held = Ctx(req).calls.Of(parent)] {
    Status s = Ctx(req).fs->Rmdir(parent, name);
    if (!s.ok()) return ReplyError(req, s, "rmdir");
    fuse_reply_err(req, 0);
  });
}

void Symlink(fuse_req_t req, const char* link, fuse_ino_t parent, const char* name) {
  Admit(req, kMeta, 1,
        [req, link = std::string(link), parent, name = std::string(name), held = Ctx(req).calls.Of(parent)] {
          auto e = Ctx(req).fs->Symlink(parent, name, link, CallerOf(req));
          if (!e) return ReplyError(req, e.error(), "symlink");
          ReplyEntry(req, *e);
        });
}

void Rename(fuse_req_t req, fuse_ino_t parent, const char* name, fuse_ino_t new_parent, const char* new_name,
            unsigned int flags) {
  KernelCallsInFlight& calls = Ctx(req).calls;
  Admit(req, kMeta, 1,
        [req, parent, name = std::string(name), new_parent, new_name = std::string(new_name), flags,
         held = calls.Of(parent), held_new = calls.Of(new_parent)] {
          Status s = Ctx(req).fs->Rename(parent, name, new_parent, new_name, flags);
          if (!s.ok()) return ReplyError(req, s, "rename");
          fuse_reply_err(req, 0);
        });
}

void Link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t new_parent, const char* new_name) {
  Admit(req, kMeta, 1, [req, ino, new_parent, new_name = std::string(new_name), held = Ctx(req).calls.Of(new_parent)] {
    auto e = Ctx(req).fs->Link(ino, new_parent, new_name);
    if (!e) return ReplyError(req, e.error(), "link");
    ReplyEntry(req, *e);
  });
}

void StatFs(fuse_req_t req, fuse_ino_t) {
  Admit(req, kMeta, 1, [req] {
    auto s = Ctx(req).fs->StatFs();
    if (!s) return ReplyError(req, s.error(), "statfs");
    struct statvfs st {};
    st.f_bsize = s->block_size;
    st.f_frsize = s->block_size;
    st.f_blocks = s->total_blocks;
    st.f_bfree = s->free_blocks;
    st.f_bavail = s->avail_blocks;
    st.f_files = st.f_ffree = st.f_favail = 1ULL << 40;  // the namespace has no inode table
    st.f_namemax = 255;
    fuse_reply_statfs(req, &st);
  });
}

}  // namespace bb::fs::adapter
