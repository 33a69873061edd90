// The real ChunkStore: a few sparse segment files per file (layout in chunk_store.h).
//
// Open segment files are cached (LRU) as shared handles: a handle is closed only when the cache
// has dropped it and no in-flight read or write still uses it, so eviction never closes a
// descriptor under a concurrent pread/pwrite. No lock is held across a syscall on chunk data.
//
// Removal is one rename: <file id>/ becomes <file id>.del/ in the same folder, and a background
// thread deletes what it holds. Removing a file therefore costs the remover one metadata update
// instead of an unlink per chunk plus an rmdir; a restart finds leftover .del folders and
// finishes them. The thread starts when removals pause (or the backlog is long), at the lowest
// CPU priority, so a burst of deletes does not compete with its own space reclaim; a write
// that finds the store full makes it start at once and waits for it.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "fs/store/chunk_store.h"
#include "fs/store/space_guard.h"

namespace bb::fs {
namespace {

constexpr char kRemovedSuffix[] = ".del";
// The content of <chunks>/LAYOUT: which layout the folder holds.
const std::string kLayout = "segments " + std::to_string(kChunkSegments) + "\n";
constexpr auto kReclaimWait = std::chrono::seconds(10);
// The reclaimer starts once removals have paused this long, or at once when this many folders
// wait (about 40 bytes of memory each) or a writer finds the store full.
constexpr auto kReclaimQuiet = std::chrono::milliseconds(500);
constexpr size_t kReclaimBacklog = 100000;

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

using SegmentKey = std::pair<uint64_t, uint64_t>;  // (file id, segment)

std::string FileDirName(uint64_t file_id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, file_id);
  return buf;
}

// Names of the entries of directory `dfd` (consumed: the descriptor is closed).
std::vector<std::string> ListNames(int dfd) {
  std::vector<std::string> names;
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

class PosixChunkStore final : public ChunkStore {
 public:
  PosixChunkStore(int dir_fd, std::string dir, uint64_t reserve, size_t max_open)
      : dir_fd_(dir_fd), dir_(dir), max_open_(max_open < 16 ? 16 : max_open), guard_(dir, reserve) {
    // Removals a previous run did not finish.
    int dfd = ::openat(dir_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (std::string& name : ListNames(dfd)) {
      if (name.size() > 4 && name.ends_with(kRemovedSuffix)) removed_.push_back(std::move(name));
    }
    reclaimer_ = std::thread([this] { ReclaimLoop(); });
  }

  ~PosixChunkStore() override {
    {
      std::lock_guard lock(reclaim_mu_);
      stopping_ = true;
    }
    reclaim_cv_.notify_all();
    reclaimer_.join();
    ::close(dir_fd_);
  }

  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, data.size()));
    BB_RETURN_IF_ERROR(CheckSpace(data.size()));
    uint64_t segment = ChunkSegment(index);
    BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, segment, /*create=*/true));
    uint64_t at = SegmentOffset(index, chunk_size) + offset;
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::pwrite(fd->fd, data.data() + done, data.size() - done, static_cast<off_t>(at + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(errno, "write " + ChunkName(file_id, index));
      }
      done += static_cast<size_t>(n);
    }
    MarkDirty(file_id, segment);
    return Status::Ok();
  }

  Result<size_t> Read(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                      std::span<char> buf) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, buf.size()));
    auto fd = Open(file_id, ChunkSegment(index), /*create=*/false);
    if (!fd) {
      if (fd.error().code() == ENOENT) return size_t{0};
      return fd.error();
    }
    uint64_t at = SegmentOffset(index, chunk_size) + offset;
    size_t done = 0;
    while (done < buf.size()) {
      ssize_t n = ::pread((*fd)->fd, buf.data() + done, buf.size() - done, static_cast<off_t>(at + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Errno(errno, "read " + ChunkName(file_id, index));
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    return done;
  }

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                  uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    BB_RETURN_IF_ERROR(CheckSpace(length));
    uint64_t segment = ChunkSegment(index);
    BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, segment, /*create=*/true));
    uint64_t at = SegmentOffset(index, chunk_size) + offset;
    int rc = ::posix_fallocate(fd->fd, static_cast<off_t>(at), static_cast<off_t>(length));
    if (rc != 0) return Errno(rc, "allocate " + ChunkName(file_id, index));
    MarkDirty(file_id, segment);
    return Status::Ok();
  }

  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    if (chunk_size == 0) return Status(EINVAL, "truncate chunks of file " + FileDirName(file_id) + ": chunk size 0");
    std::string dir = FileDirName(file_id);
    int dfd = ::openat(dir_fd_, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
      if (errno == ENOENT) return Status::Ok();
      return Errno(errno, "open chunk folder " + dir_ + "/" + dir);
    }
    for (const std::string& name : ListNames(dfd)) {
      char* end = nullptr;
      uint64_t segment = std::strtoull(name.c_str(), &end, 10);
      if (end == name.c_str() || *end != '\0' || segment >= kChunkSegments) continue;
      BB_ASSIGN_OR_RETURN(FdRef fd, Open(file_id, segment, /*create=*/false));
      struct stat st {};
      if (::fstat(fd->fd, &st) != 0) return Errno(errno, "stat " + SegmentName(file_id, segment));
      uint64_t keep = SegmentBytesBelow(size, chunk_size, segment);
      if (static_cast<uint64_t>(st.st_size) > keep && ::ftruncate(fd->fd, static_cast<off_t>(keep)) != 0) {
        return Errno(errno, "truncate " + SegmentName(file_id, segment));
      }
    }
    return Status::Ok();
  }

  Status Remove(uint64_t file_id) override {
    Forget(file_id);
    {
      std::lock_guard lock(mu_);
      dirty_.erase(file_id);
    }
    std::string dir = FileDirName(file_id);
    std::string removed = dir + kRemovedSuffix;
    if (::renameat(dir_fd_, dir.c_str(), dir_fd_, removed.c_str()) != 0) {
      if (errno == ENOENT) return Status::Ok();  // the file never had data here
      return Errno(errno, "remove chunk folder " + dir_ + "/" + dir);
    }
    {
      std::lock_guard lock(reclaim_mu_);
      removed_.push_back(std::move(removed));
      last_remove_ = std::chrono::steady_clock::now();
      // Wake the reclaimer only when it sleeps for want of work or the backlog is full; during
      // a burst of removals it waits for the pause on its own.
      if (removed_.size() != 1 && removed_.size() < kReclaimBacklog) return Status::Ok();
    }
    reclaim_cv_.notify_all();
    return Status::Ok();
  }

  Status Sync(uint64_t file_id) override {
    Dirty state;
    {
      std::lock_guard lock(mu_);
      auto it = dirty_.find(file_id);
      if (it == dirty_.end()) return Status::Ok();
      state = std::move(it->second);
      dirty_.erase(it);
    }
    // Start write-back of every dirty segment first, so the disk sees all of it at once, then
    // wait for each; one fdatasync after another would write the segments back one by one.
    std::vector<std::pair<uint64_t, FdRef>> fds;
    fds.reserve(state.segments.size());
    for (uint64_t segment : state.segments) {
      auto fd = Open(file_id, segment, /*create=*/false);
      if (!fd) {
        if (fd.error().code() == ENOENT) continue;  // removed meanwhile
        return fd.error();
      }
      ::sync_file_range((*fd)->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
      fds.emplace_back(segment, std::move(*fd));
    }
    for (auto& [segment, fd] : fds) {
      if (::fdatasync(fd->fd) != 0) return Errno(errno, "sync " + SegmentName(file_id, segment));
    }
    // New segment files must also survive: sync the folders that gained entries, only those.
    if (state.new_segments) {
      std::string dir = FileDirName(file_id);
      int dfd = ::openat(dir_fd_, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
      }
    }
    if (state.new_file_dir && ::fsync(dir_fd_) != 0) return Errno(errno, "sync chunk folder " + dir_);
    return Status::Ok();
  }

 private:
  // What a file has that is not yet durable.
  struct Dirty {
    std::set<uint64_t> segments;   // segments written
    bool new_segments = false;     // its folder gained segment files
    bool new_file_dir = false;     // the chunks folder gained its folder
  };

  struct OpenSegment {
    FdRef fd;
    std::list<SegmentKey>::iterator lru_pos;
  };

  std::string SegmentName(uint64_t file_id, uint64_t segment) const {
    return dir_ + "/" + FileDirName(file_id) + "/" + std::to_string(segment);
  }
  std::string ChunkName(uint64_t file_id, uint64_t index) const {
    return "chunk " + std::to_string(index) + " in " + SegmentName(file_id, ChunkSegment(index));
  }

  // ENOSPC only once the removals still pending could not make room.
  Status CheckSpace(uint64_t bytes) {
    Status s = guard_.Check(bytes);
    if (s.code() != ENOSPC) return s;
    std::unique_lock lock(reclaim_mu_);
    if (removed_.empty() && !reclaiming_) return s;
    space_wanted_ = true;  // the reclaimer stops waiting for a pause in removals
    reclaim_cv_.notify_all();
    reclaim_cv_.wait_for(lock, kReclaimWait, [&] { return removed_.empty() && !reclaiming_; });
    lock.unlock();
    return guard_.Check(bytes);
  }

  void ReclaimLoop() {
    // Reclaiming space is background work: at the lowest CPU priority (a thread's nice value
    // is its own on Linux), file operations that wait for an answer go first. The deletes it
    // issues also free blocks, which with a `discard` mount means device trims.
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
    std::unique_lock lock(reclaim_mu_);
    while (true) {
      reclaim_cv_.wait(lock, [&] { return stopping_ || !removed_.empty(); });
      // Deleting competes with the file operations for the disk and the folder's lock, so it
      // waits for a pause in removals, unless the backlog is full or a writer needs the space.
      while (!stopping_ && !space_wanted_ && removed_.size() < kReclaimBacklog) {
        auto quiet = last_remove_ + kReclaimQuiet;
        if (std::chrono::steady_clock::now() >= quiet) break;
        reclaim_cv_.wait_until(lock, quiet);
      }
      if (stopping_) return;  // what is left is finished at the next start
      std::string name = std::move(removed_.front());
      removed_.pop_front();
      reclaiming_ = true;
      lock.unlock();
      int dfd = ::openat(dir_fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        for (const std::string& chunk : ListNames(dfd)) {
          ::unlinkat(dir_fd_, (name + "/" + chunk).c_str(), 0);
        }
      }
      ::unlinkat(dir_fd_, name.c_str(), AT_REMOVEDIR);
      lock.lock();
      reclaiming_ = false;
      if (removed_.empty()) space_wanted_ = false;
      reclaim_cv_.notify_all();
    }
  }

  void MarkDirty(uint64_t file_id, uint64_t segment) {
    std::lock_guard lock(mu_);
    dirty_[file_id].segments.insert(segment);
  }

  Result<FdRef> Open(uint64_t file_id, uint64_t segment, bool create) {
    SegmentKey key{file_id, segment};
    {
      std::lock_guard lock(mu_);
      auto it = open_.find(key);
      if (it != open_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
        return it->second.fd;
      }
    }
    std::string dir = FileDirName(file_id);
    std::string name = dir + "/" + std::to_string(segment);
    int fd = ::openat(dir_fd_, name.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
      // A new segment file (and maybe a new folder): remember it, so Sync makes the entries
      // durable too, and only then.
      bool new_dir = false;
      fd = ::openat(dir_fd_, name.c_str(), O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, 0600);
      if (fd < 0 && errno == ENOENT) {
        if (::mkdirat(dir_fd_, dir.c_str(), 0700) == 0) {
          new_dir = true;
        } else if (errno != EEXIST) {
          return Errno(errno, "create chunk folder " + dir_ + "/" + dir);
        }
        fd = ::openat(dir_fd_, name.c_str(), O_RDWR | O_CLOEXEC | O_CREAT | O_EXCL, 0600);
      }
      if (fd >= 0) {
        std::lock_guard lock(mu_);
        Dirty& d = dirty_[file_id];
        d.new_segments = true;
        d.new_file_dir |= new_dir;
      } else if (errno == EEXIST) {  // another thread created it meanwhile
        fd = ::openat(dir_fd_, name.c_str(), O_RDWR | O_CLOEXEC);
      }
    }
    if (fd < 0) return Errno(errno, "open " + SegmentName(file_id, segment));
    auto ref = std::make_shared<Fd>(fd);
    std::lock_guard lock(mu_);
    auto [it, inserted] = open_.try_emplace(key);
    if (!inserted) {  // another thread opened it meanwhile; use theirs
      lru_.splice(lru_.begin(), lru_, it->second.lru_pos);
      return it->second.fd;
    }
    lru_.push_front(key);
    it->second = {ref, lru_.begin()};
    while (open_.size() > max_open_) {
      open_.erase(lru_.back());
      lru_.pop_back();
    }
    return ref;
  }

  // Drops the cached handles of the file's segments.
  void Forget(uint64_t file_id) {
    std::lock_guard lock(mu_);
    auto it = open_.lower_bound({file_id, 0});
    while (it != open_.end() && it->first.first == file_id) {
      lru_.erase(it->second.lru_pos);
      it = open_.erase(it);
    }
  }

  const int dir_fd_;
  const std::string dir_;
  const size_t max_open_;
  SpaceGuard guard_;

  std::mutex mu_;  // guards open_, lru_ and dirty_
  std::map<SegmentKey, OpenSegment> open_;
  std::list<SegmentKey> lru_;  // most recently used first
  std::map<uint64_t, Dirty> dirty_;  // not yet durable, per file

  std::mutex reclaim_mu_;  // guards removed_, last_remove_, the flags
  std::condition_variable reclaim_cv_;
  std::deque<std::string> removed_;  // .del folders waiting to be deleted
  std::chrono::steady_clock::time_point last_remove_;
  bool reclaiming_ = false;    // the reclaimer is deleting one right now
  bool space_wanted_ = false;  // a writer waits for space: reclaim without pausing
  bool stopping_ = false;
  std::thread reclaimer_;  // last: started after everything it uses
};

// The folder must hold this layout (its LAYOUT file says so) or nothing yet, in which case it
// is marked as holding it.
Status CheckLayout(int dir_fd, const std::string& dir) {
  int fd = ::openat(dir_fd, "LAYOUT", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[64];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    std::string found(buf, n > 0 ? static_cast<size_t>(n) : 0);
    if (found == kLayout) return Status::Ok();
    return Status(EINVAL, "chunk folder " + dir + " holds the layout \"" +
                              found.substr(0, found.find('\n')) + "\" (its LAYOUT file); this version reads \"" +
                              kLayout.substr(0, kLayout.size() - 1) + "\"; start from an empty root");
  }
  if (errno != ENOENT) return Errno(errno, "read " + dir + "/LAYOUT");
  std::vector<std::string> names = ListNames(::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::erase(names, "LAYOUT.new");  // left by a start that stopped while marking the folder
  if (!names.empty()) {
    return Status(EINVAL, "chunk folder " + dir + " holds data but no LAYOUT file: it was written with a "
                          "file per chunk by an older version; start from an empty root");
  }
  fd = ::openat(dir_fd, "LAYOUT.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(errno, "create " + dir + "/LAYOUT.new");
  bool written = ::write(fd, kLayout.data(), kLayout.size()) == static_cast<ssize_t>(kLayout.size()) &&
                 ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  if (!written) return Errno(err, "write " + dir + "/LAYOUT.new");
  if (::renameat(dir_fd, "LAYOUT.new", dir_fd, "LAYOUT") != 0) return Errno(errno, "create " + dir + "/LAYOUT");
  ::fsync(dir_fd);
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<ChunkStore>> OpenPosixChunkStore(const std::string& root,
                                                        uint64_t reserve_bytes, size_t max_open) {
  std::string dir = root + "/chunks";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "create chunk folder " + dir);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "open chunk folder " + dir);
  if (Status s = CheckLayout(fd, dir); !s.ok()) {
    ::close(fd);
    return s;
  }
  return std::unique_ptr<ChunkStore>(new PosixChunkStore(fd, dir, reserve_bytes, max_open));
}

}  // namespace bb::fs
