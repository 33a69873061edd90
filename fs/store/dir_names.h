// Private to fs/store: the names in a directory.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

namespace bb::fs {

// Names of the entries of directory `dfd`, "." and ".." left out (consumed: the descriptor is
// closed; an invalid one gives none).
inline std::vector<std::string> ListNames(int dfd) {
  std::vector<std::string> names;
  if (dfd < 0) return names;
  DIR* d = ::fdopendir(dfd);
  if (d == nullptr) {
    ::close(dfd);
    return names;
  }
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.push_back(e->d_name);
  }
  ::closedir(d);
  return names;
}

}  // namespace bb::fs
