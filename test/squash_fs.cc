// A test's stand-in for a folder exported by NFS with root_squash: a passthrough FUSE file system
// over SOURCE that serves each request as its caller, with uid 0 as nobody (65534:65534). Every
// call runs with the serving thread's file system ids (setfsuid/setfsgid) set to the caller's,
// so SOURCE's own file system checks permissions as it would for that user: root may read and
// write only what nobody may, what it makes is nobody's, and it cannot give a file away.
// Supplementary groups are not carried (the threads have none).
//   squash_fs SOURCE MOUNTPOINT    (in the foreground until unmounted: fusermount3 -u MOUNTPOINT)
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <fcntl.h>
#include <fuse.h>
#include <grp.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace {

constexpr uid_t kNobody = 65534;
std::string source;

// The caller's ids on this thread for one call, root's as nobody's.
class AsCaller {
 public:
  AsCaller() {
    const fuse_context* c = fuse_get_context();
    const bool root = c->uid == 0;
    ::setfsgid(root ? kNobody : c->gid);
    ::setfsuid(root ? kNobody : c->uid);
  }
  ~AsCaller() {
    ::setfsuid(0);
    ::setfsgid(0);
  }
  AsCaller(const AsCaller&) = delete;
  AsCaller& operator=(const AsCaller&) = delete;
};

std::string At(const char* path) { return source + path; }
int Rc(int rc) { return rc < 0 ? -errno : rc; }

int GetAttr(const char* path, struct stat* st, fuse_file_info*) {
  AsCaller as;
  return Rc(::lstat(At(path).c_str(), st));
}
int Access(const char* path, int mask) {
  AsCaller as;
  return Rc(::faccessat(AT_FDCWD, At(path).c_str(), mask, AT_EACCESS));
}
int ReadLink(const char* path, char* buf, size_t size) {
  AsCaller as;
  ssize_t n = ::readlink(At(path).c_str(), buf, size - 1);
  if (n < 0) return -errno;
  buf[n] = '\0';
  return 0;
}
int ReadDir(const char* path, void* buf, fuse_fill_dir_t fill, off_t, fuse_file_info*, fuse_readdir_flags) {
  AsCaller as;
  DIR* d = ::opendir(At(path).c_str());
  if (d == nullptr) return -errno;
  while (dirent* e = ::readdir(d)) {
    struct stat st {};
    st.st_ino = e->d_ino;
    st.st_mode = static_cast<mode_t>(e->d_type) << 12;
    if (fill(buf, e->d_name, &st, 0, static_cast<fuse_fill_dir_flags>(0)) != 0) break;
  }
  ::closedir(d);
  return 0;
}
int MkDir(const char* path, mode_t mode) {
  AsCaller as;
  return Rc(::mkdir(At(path).c_str(), mode));
}
int Unlink(const char* path) {
  AsCaller as;
  return Rc(::unlink(At(path).c_str()));
}
int RmDir(const char* path) {
  AsCaller as;
  return Rc(::rmdir(At(path).c_str()));
}
int SymLink(const char* target, const char* path) {
  AsCaller as;
  return Rc(::symlink(target, At(path).c_str()));
}
int Rename(const char* from, const char* to, unsigned int flags) {
  AsCaller as;
  return Rc(::renameat2(AT_FDCWD, At(from).c_str(), AT_FDCWD, At(to).c_str(), flags));
}
int Link(const char* from, const char* to) {
  AsCaller as;
  return Rc(::link(At(from).c_str(), At(to).c_str()));
}
int ChMod(const char* path, mode_t mode, fuse_file_info*) {
  AsCaller as;
  return Rc(::chmod(At(path).c_str(), mode));
}
int ChOwn(const char* path, uid_t uid, gid_t gid, fuse_file_info*) {
  AsCaller as;
  return Rc(::lchown(At(path).c_str(), uid, gid));
}
int Truncate(const char* path, off_t size, fuse_file_info* fi) {
  AsCaller as;
  return Rc(fi != nullptr ? ::ftruncate(static_cast<int>(fi->fh), size) : ::truncate(At(path).c_str(), size));
}
int UTimeNs(const char* path, const timespec tv[2], fuse_file_info*) {
  AsCaller as;
  return Rc(::utimensat(AT_FDCWD, At(path).c_str(), tv, AT_SYMLINK_NOFOLLOW));
}
int Open(const char* path, fuse_file_info* fi) {
  AsCaller as;
  int fd = ::open(At(path).c_str(), fi->flags);
  if (fd < 0) return -errno;
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}
int Create(const char* path, mode_t mode, fuse_file_info* fi) {
  AsCaller as;
  int fd = ::open(At(path).c_str(), fi->flags | O_CREAT, mode);
  if (fd < 0) return -errno;
  fi->fh = static_cast<uint64_t>(fd);
  return 0;
}
int Read(const char*, char* buf, size_t size, off_t at, fuse_file_info* fi) {
  return Rc(static_cast<int>(::pread(static_cast<int>(fi->fh), buf, size, at)));
}
int Write(const char*, const char* buf, size_t size, off_t at, fuse_file_info* fi) {
  return Rc(static_cast<int>(::pwrite(static_cast<int>(fi->fh), buf, size, at)));
}
int StatFs(const char* path, struct statvfs* st) {
  AsCaller as;
  return Rc(::statvfs(At(path).c_str(), st));
}
int Release(const char*, fuse_file_info* fi) { return Rc(::close(static_cast<int>(fi->fh))); }
int FSync(const char*, int datasync, fuse_file_info* fi) {
  const int fd = static_cast<int>(fi->fh);
  return Rc(datasync != 0 ? ::fdatasync(fd) : ::fsync(fd));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: squash_fs SOURCE MOUNTPOINT\n");
    return 2;
  }
  source = argv[1];
  if (::setgroups(0, nullptr) != 0) {
    std::perror("squash_fs: setgroups");
    return 1;
  }
  ::umask(0);  // the callers' modes as they asked (the kernel applied their umask)
  fuse_operations ops{};
  ops.getattr = GetAttr;
  ops.access = Access;
  ops.readlink = ReadLink;
  ops.readdir = ReadDir;
  ops.mkdir = MkDir;
  ops.unlink = Unlink;
  ops.rmdir = RmDir;
  ops.symlink = SymLink;
  ops.rename = Rename;
  ops.link = Link;
  ops.chmod = ChMod;
  ops.chown = ChOwn;
  ops.truncate = Truncate;
  ops.utimens = UTimeNs;
  ops.open = Open;
  ops.create = Create;
  ops.read = Read;
  ops.write = Write;
  ops.statfs = StatFs;
  ops.release = Release;
  ops.fsync = FSync;
  char name[] = "squash_fs", fg[] = "-f", o[] = "-o",
       opts[] = "allow_other,fsname=squash,attr_timeout=0,entry_timeout=0,max_threads=16";
  char* fuse_argv[] = {name, argv[2], fg, o, opts, nullptr};
  return fuse_main(5, fuse_argv, &ops, nullptr);
}
