#include "modeselect/static/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace bb::modeselect {

Result<std::string> DiskFiles::Read(const std::string& path) const {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(errno, path);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    ::close(fd);
    return Status(err, path);
  }
  if (static_cast<size_t>(st.st_size) > kMaxBytes) {
    ::close(fd);
    return Status(EFBIG, path);
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return out;
}

bool DiskFiles::IsFile(const std::string& path) const {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> DiskFiles::List(const std::string& dir) const {
  std::vector<std::string> out;
  std::error_code ec;
  namespace fs = std::filesystem;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it.depth() > 8) it.disable_recursion_pending();
    if (it->is_regular_file(ec)) out.push_back(p.string());
    if (out.size() >= kMaxFiles) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> MemoryFiles::Read(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return Status(ENOENT, path);
  if (it->second.error) return Status(it->second.error, path);
  return it->second.text;
}

std::vector<std::string> MemoryFiles::List(const std::string& dir) const {
  std::vector<std::string> out;
  std::string prefix = dir.empty() || dir == "." ? "" : dir + (dir.back() == '/' ? "" : "/");
  for (const auto& [path, entry] : files_) {
    if (path.compare(0, prefix.size(), prefix) == 0 && out.size() < kMaxFiles) out.push_back(path);
  }
  return out;
}

}  // namespace bb::modeselect
