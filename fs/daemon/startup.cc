#include "fs/daemon/startup.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fs/base/mounts.h"

namespace bb::fs {

Status CheckMountPoint(const std::string& mount) {
  struct stat st {};
  if (::stat(mount.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOTCONN) {
      return Status(ENOTCONN,
                    "mount point " + mount + " is a stale FUSE mount; clear it with: fusermount3 -u -z " + mount);
    }
    return Status(err, "mount point " + mount + ": " + std::strerror(err));
  }
  if (!S_ISDIR(st.st_mode)) return Status(ENOTDIR, "mount point " + mount + " is not a directory");
  std::error_code ec;
  std::string canon = std::filesystem::canonical(mount, ec).string();
  if (ec) canon = mount;
  if (auto fstype = MountedFsType(canon)) {
    return Status(EBUSY, "mount point " + mount + " already has a file system mounted (" + *fstype + ")");
  }
  return Status::Ok();
}

Status MakePrivate(const std::string& root) {
  namespace fsys = std::filesystem;
  auto secure = [](const fsys::path& p, bool dir) -> Status {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return Status::Ok();
    mode_t want = dir ? 0700 : 0600;
    if ((st.st_mode & 07777 & ~want) == 0) return Status::Ok();
    if (::chmod(p.c_str(), (st.st_mode & want) | (dir ? 0700 : 0600)) != 0) {
      return Status(errno, p.string() + " is readable by others (mode " + fmt::format("{:04o}", st.st_mode & 07777) +
                               ") and cannot be made private: " + std::strerror(errno));
    }
    return Status::Ok();
  };
  BB_RETURN_IF_ERROR(secure(root, true));
  std::error_code ec;
  for (const auto& e : fsys::directory_iterator(root, ec)) {
    BB_RETURN_IF_ERROR(secure(e.path(), e.is_directory(ec)));
  }
  // The metadata database: every path, owner and mode of the instance (the chunk store makes
  // its folders 0700 and its files 0600 itself).
  for (const auto& e : fsys::recursive_directory_iterator(root + "/meta", ec)) {
    BB_RETURN_IF_ERROR(secure(e.path(), e.is_directory(ec)));
  }
  return Status::Ok();
}

Result<int> LockRoot(const std::string& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return Status(ec.value(), "cannot create root " + root + ": " + ec.message());
  BB_RETURN_IF_ERROR(MakePrivate(root));
  std::string lock_path = root + "/bbd.lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return Status(errno, "cannot open " + lock_path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    char buf[32] = {0};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n')) holder.pop_back();
    if (err == EWOULDBLOCK) {
      return Status(EBUSY, "root " + root + " is in use by another bbd (pid " + holder + ")");
    }
    return Status(err, "cannot lock " + lock_path + ": " + std::strerror(err));
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    int err = errno;
    ::close(fd);
    return Status(err, "cannot write " + lock_path + ": " + std::strerror(err));
  }
  return fd;
}

}  // namespace bb::fs
