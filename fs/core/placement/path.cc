#include "fs/core/placement/path.h"

#include <algorithm>

namespace bb::fs {

Status ValidateName(std::string_view name) {
  if (name.size() > kNameMax) {
    return Status(ENAMETOOLONG, "name is " + std::to_string(name.size()) + " bytes, limit 255");
  }
  if (name.empty() || name == "." || name == "..") return Status(EINVAL, "invalid name");
  if (name.find('/') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    return Status(EINVAL, "name contains '/' or NUL");
  }
  return Status::Ok();
}

Result<std::string> JoinPath(std::string_view parent, std::string_view name) {
  std::string path;
  path.reserve(parent.size() + 1 + name.size());
  if (parent != "/") path.append(parent);
  path.push_back('/');
  path.append(name);
  if (path.size() > kPathMax) {
    return Status(ENAMETOOLONG, "path longer than " + std::to_string(kPathMax) + " bytes");
  }
  return path;
}

size_t PathDepth(std::string_view path) {
  if (path == "/") return 0;
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

std::string_view ParentPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return path.substr(0, slash);
}

std::string_view BaseName(std::string_view path) {
  if (path == "/") return "";
  return path.substr(path.rfind('/') + 1);
}

bool IsSameOrBelow(std::string_view path, std::string_view ancestor) {
  if (ancestor == "/") return true;
  if (path.size() < ancestor.size() || path.substr(0, ancestor.size()) != ancestor) return false;
  return path.size() == ancestor.size() || path[ancestor.size()] == '/';
}

}  // namespace bb::fs
