// The real ChunkStore: one file per chunk (layout in chunk_store.h).
//
// Open chunk files are cached (LRU) as shared handles: a handle is closed only when the cache
// has dropped it and no in-flight read or write still uses it, so eviction never closes a
// descriptor under a concurrent pread/pwrite. No lock is held across a syscall on chunk data.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cinttypes>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "fs/store/chunk_store.h"
#include "fs/store/space_guard.h"

namespace bb::fs {
namespace {

constexpr size_t kMaxOpenChunks = 1024;

Status Errno(int err, const std::string& what) {
  return Status(err, what + ": " + std::strerror(err));
}

struct Fd {
  explicit Fd(int f) : fd(f) {}
  ~Fd() { ::close(fd); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int fd;
};
using FdRef = std::shared_ptr<Fd>;

struct ChunkKey {
  uint64_t file_id;
  uint64_t index;
  bool operator==(const ChunkKey&) const = default;
};
struct ChunkKeyHash {
  size_t operator()(const ChunkKey& k) const { return k.file_id * 0x9e3779b97f4a7c15ULL ^ k.index; }
};

std::string FileDirName(uint64_t file_id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, file_id);
  return buf;
}

class PosixChunkStore final : public ChunkStore {
 public:
  PosixChunkStore(int dir_fd, std::string dir, uint64_t reserve)
      : dir_fd_(dir_fd), dir_(dir), guard_(dir, reserve) {}
  ~PosixChunkStore() override { ::close(dir_fd_); }

  Status Write(uint64_t file_id, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    BB_RETURN_IF_ERROR(guard_.Check(data.size()));
    BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, index, /*create=*/true));
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::pwrite(fd->fd, data.data() + done, data.size() - done,
                           static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(errno, "write chunk " + Name(file_id, index));
      }
      done += static_cast<size_t>(n);
    }
    MarkDirty(file_id, index);
    return Status::Ok();
  }

  Result<size_t> Read(uint64_t file_id, uint64_t index, uint64_t offset,
                      std::span<char> buf) override {
    auto fd = Open(file_id, index, /*create=*/false);
    if (!fd) {
      if (fd.error().code() == ENOENT) return size_t{0};
      return fd.error();
    }
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t n = ::pread((*fd)->fd, buf.data() + done, buf.size() - done,
                          static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(errno, "read chunk " + Name(file_id, index));
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

  Status Allocate(uint64_t file_id, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(guard_.Check(length));
    BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, index, /*create=*/true));
    int rc = ::posix_fallocate(fd->fd, static_cast<off_t>(offset), static_cast<off_t>(length));
    if (rc != 0) return Errno(rc, "allocate chunk " + Name(file_id, index));
    MarkDirty(file_id, index);
    return Status::Ok();
  }

  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    BB_ASSIGN_OR_RETURN(std::vector<uint64_t> chunks, ListChunks(file_id));
    std::string dir = FileDirName(file_id);
    for (uint64_t index : chunks) {
      uint64_t start = index * chunk_size;
      if (start >= size) {
        Forget(file_id, index);
        std::string name = dir + "/" + std::to_string(index);
        if (::unlinkat(dir_fd_, name.c_str(), 0) != 0 && errno != ENOENT) {
          return Errno(errno, "remove chunk " + Name(file_id, index));
        }
      } else if (start + chunk_size > size) {
        BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, index, /*create=*/false));
        if (::ftruncate(fd->fd, static_cast<off_t>(size - start)) != 0) {
          return Errno(errno, "truncate chunk " + Name(file_id, index));
        }
      }
    }
    return Status::Ok();
  }

  Status Remove(uint64_t file_id) override {
    BB_ASSIGN_OR_RETURN(std::vector<uint64_t> chunks, ListChunks(file_id));
    std::string dir = FileDirName(file_id);
    for (uint64_t index : chunks) {
      Forget(file_id, index);
      std::string name = dir + "/" + std::to_string(index);
      if (::unlinkat(dir_fd_, name.c_str(), 0) != 0 && errno != ENOENT) {
        return Errno(errno, "remove chunk " + Name(file_id, index));
      }
    }
    {
      std::lock_guard lock(mu_);
      dirty_.erase(file_id);
    }
    if (::unlinkat(dir_fd_, dir.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
      return Errno(errno, "remove chunk folder of file " + dir);
    }
    return Status::Ok();
  }

  Status Sync(uint64_t file_id) override {
    std::set<uint64_t> dirty;
    {
      std::lock_guard lock(mu_);
      auto it = dirty_.find(file_id);
      if (it == dirty_.end()) return Status::Ok();
      dirty.swap(it->second);
      dirty_.erase(it);
    }
    for (uint64_t index : dirty) {
      auto fd = Open(file_id, index, /*create=*/false);
      if (!fd) {
        if (fd.error().code() == ENOENT) continue;  // truncated away meanwhile
        return fd.error();
      }
      if (::fdatasync((*fd)->fd) != 0) return Errno(errno, "sync chunk " + Name(file_id, index));
    }
    // New chunk files must also survive: sync the file's folder and the chunks folder.
    std::string dir = FileDirName(file_id);
    int dfd = ::openat(dir_fd_, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    ::fsync(dir_fd_);
    return Status::Ok();
  }

 private:
  std::string Name(uint64_t file_id, uint64_t index) const {
    return dir_ + "/" + FileDirName(file_id) + "/" + std::to_string(index);
  }

  void MarkDirty(uint64_t file_id, uint64_t index) {
    std::lock_guard lock(mu_);
    dirty_[file_id].insert(index);
  }

  Result<FdRef> Open(uint64_t file_id, uint64_t index, bool create) {
    ChunkKey key{file_id, index};
    {
      std::lock_guard lock(mu_);
      auto it = open_.find(key);
      if (it != open_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
        return it->second.fd;
      }
    }
    std::string dir = FileDirName(file_id);
    std::string name = dir + "/" + std::to_string(index);
    int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
    int fd = ::openat(dir_fd_, name.c_str(), flags, 0600);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(dir_fd_, dir.c_str(), 0700) != 0 && errno != EEXIST) {
        return Errno(errno, "create chunk folder " + dir_ + "/" + dir);
      }
      fd = ::openat(dir_fd_, name.c_str(), flags, 0600);
    }
    if (fd < 0) return Errno(errno, "open chunk " + Name(file_id, index));
    auto ref = std::make_shared<Fd>(fd);
    std::lock_guard lock(mu_);
    auto [it, inserted] = open_.try_emplace(key);
    if (!inserted) {  // another thread opened it meanwhile; use theirs
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      return it->second.fd;
    }
    lru_.push_front(key);
    it->second = {ref, lru_.begin()};
    while (open_.size() > kMaxOpenChunks) {
      open_.erase(lru_.back());
      lru_.pop_back();
    }
    return ref;
  }

  void Forget(uint64_t file_id, uint64_t index) {
    std::lock_guard lock(mu_);
    auto it = open_.find({file_id, index});
    if (it == open_.end()) return;
    lru_.erase(it->second.lru_pos);
    open_.erase(it);
  }

  Result<std::vector<uint64_t>> ListChunks(uint64_t file_id) {
    std::vector<uint64_t> out;
    std::string dir = FileDirName(file_id);
    int dfd = ::openat(dir_fd_, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
      if (errno == ENOENT) return out;
      return Errno(errno, "open chunk folder " + dir_ + "/" + dir);
    }
    DIR* d = ::fdopendir(dfd);
    if (d == nullptr) {
      ::close(dfd);
      return Errno(errno, "list chunk folder " + dir);
    }
    while (dirent* e = ::readdir(d)) {
      char* end = nullptr;
      uint64_t index = std::strtoull(e->d_name, &end, 10);
      if (end != e->d_name && *end == '\0') out.push_back(index);
    }
    ::closedir(d);
    return out;
  }

  struct OpenChunk {
    FdRef fd;
    std::list<ChunkKey>::iterator lru_pos;
  };

  const int dir_fd_;
  const std::string dir_;
  SpaceGuard guard_;
  std::mutex mu_;  // guards open_, lru_ and dirty_
  std::unordered_map<ChunkKey, OpenChunk, ChunkKeyHash> open_;
  std::list<ChunkKey> lru_;  // most recently used first
  std::map<uint64_t, std::set<uint64_t>> dirty_;  // written since the last Sync, per file
};

}  // namespace

Result<std::unique_ptr<ChunkStore>> OpenPosixChunkStore(const std::string& root,
                                                        uint64_t reserve_bytes) {
  std::string dir = root + "/chunks";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "create chunk folder " + dir);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "open chunk folder " + dir);
  return std::unique_ptr<ChunkStore>(new PosixChunkStore(fd, dir, reserve_bytes));
}

}  // namespace bb::fs
