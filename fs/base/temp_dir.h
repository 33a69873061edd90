// TempDir: a new folder under /tmp for scratch files, removed with everything in it when the
// object goes. For tests.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace bb {

struct TempDir {
  // /tmp/<prefix>-XXXXXX; `path` stays empty when the folder cannot be made.
  explicit TempDir(const std::string& prefix = "bb") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path;
};

}  // namespace bb
