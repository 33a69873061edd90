#include "fs/base/mounts.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bb {

std::string DecodeMountPath(const std::string& field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    auto octal = [&](size_t j) { return j < field.size() && field[j] >= '0' && field[j] <= '7'; };
    if (field[i] == '\\' && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out.push_back(static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(field[i]);
    }
  }
  return out;
}

std::optional<MountEntry> FindMount(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  std::optional<MountEntry> found;
  while (std::getline(in, line)) {
    // Fields: id parent major:minor root mount-point options ... - fstype source ...
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (DecodeMountPath(point) != path) continue;
    MountEntry entry;
    size_t dash = line.find(" - ");
    if (dash != std::string::npos) std::istringstream(line.substr(dash + 3)) >> entry.fstype;
    if (std::sscanf(dev.c_str(), "%u:%u", &entry.major, &entry.minor) != 2) entry.major = entry.minor = 0;
    found = std::move(entry);  // later lines are mounted over earlier ones
  }
  return found;
}

Status AbortFuseConnection(const std::string& mount) {
  auto entry = FindMount(mount);
  if (!entry || !entry->fstype.starts_with("fuse")) return Status(EINVAL, mount + " is not a FUSE mount");
  // fusectl names a connection by the kernel's own device number (major << 20 | minor).
  uint64_t dev = (uint64_t{entry->major} << 20) | entry->minor;
  std::string abort = "/sys/fs/fuse/connections/" + std::to_string(dev) + "/abort";
  if (int fd = ::open(abort.c_str(), O_WRONLY | O_CLOEXEC); fd >= 0) {
    ssize_t n = ::write(fd, "1", 1);
    ::close(fd);
    if (n == 1) return Status::Ok();
  }
  if (::umount2(mount.c_str(), MNT_FORCE) == 0 || errno == EBUSY) return Status::Ok();
  return Status(errno, "cannot abort the FUSE connection of " + mount + ": " + std::strerror(errno));
}

}  // namespace bb
