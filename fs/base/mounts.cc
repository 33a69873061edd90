#include "fs/base/mounts.h"

#include <fstream>
#include <sstream>

namespace bb {

std::optional<std::string> MountedFsType(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // Fields: id parent major:minor root mount-point options ... - fstype source ...
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (point != path) continue;
    std::string fstype;
    size_t dash = line.find(" - ");
    if (dash != std::string::npos) std::istringstream(line.substr(dash + 3)) >> fstype;
    return fstype;
  }
  return std::nullopt;
}

}  // namespace bb
