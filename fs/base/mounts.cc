#include "fs/base/mounts.h"

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

std::optional<std::string> MountedFsType(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // Fields: id parent major:minor root mount-point options ... - fstype source ...
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    fields >> id >> parent >> dev >> root >> point;
    if (DecodeMountPath(point) != path) continue;
    std::string fstype;
    size_t dash = line.find(" - ");
    if (dash != std::string::npos) std::istringstream(line.substr(dash + 3)) >> fstype;
    return fstype;
  }
  return std::nullopt;
}

}  // namespace bb
