// FileSource: the one seam through which the static extractor reads files — the job script,
// helper scripts, Makefiles, fio job files and sources. DiskFiles reads the real file system;
// MemoryFiles is its in-memory twin for tests.
//
// Thread-safety: both are safe for concurrent reads once built; MemoryFiles::Add is not.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::modeselect {

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The contents of the regular file `path`. ENOENT, EACCES, EISDIR, EFBIG (beyond kMaxBytes).
  virtual Result<std::string> Read(const std::string& path) const = 0;
  virtual bool IsFile(const std::string& path) const = 0;
  // The regular files under `dir`, recursively (hidden folders skipped, at most kMaxFiles),
  // sorted; empty when `dir` cannot be listed.
  virtual std::vector<std::string> List(const std::string& dir) const = 0;

  static constexpr size_t kMaxBytes = 8 << 20;
  static constexpr size_t kMaxFiles = 4096;
};

class DiskFiles : public FileSource {
 public:
  Result<std::string> Read(const std::string& path) const override;
  bool IsFile(const std::string& path) const override;
  std::vector<std::string> List(const std::string& dir) const override;
};

class MemoryFiles : public FileSource {
 public:
  void Add(const std::string& path, std::string text) { files_[path] = {std::move(text), 0}; }
  // A file that exists but reads fail with `error` (EACCES ...).
  void AddUnreadable(const std::string& path, int error) { files_[path] = {"", error}; }

  Result<std::string> Read(const std::string& path) const override;
  bool IsFile(const std::string& path) const override { return files_.count(path) > 0; }
  std::vector<std::string> List(const std::string& dir) const override;

 private:
  struct Entry {
    std::string text;
    int error;
  };
  std::map<std::string, Entry> files_;
};

}  // namespace bb::modeselect
