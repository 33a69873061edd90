// The real ChunkStore: a few sparse segment files per file (layout in chunk_store.h).
//
// Open segment files are kept in an FdCache (fd_cache.h). No lock is held across a syscall on
// chunk data. Removal is one rename: <file id>/ becomes <file id>.del/ in the same folder, and
// the Reclaimer (reclaimer.h) deletes what it holds in the background. Removing a file
// therefore costs the remover one metadata update instead of an unlink per chunk plus an rmdir;
// a write that finds the store full makes the reclaimer start at once and waits for it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "fs/store/chunk_store.h"
#include "fs/store/dir_names.h"
#include "fs/store/fd_cache.h"
#include "fs/store/reclaimer.h"
#include "fs/store/space_guard.h"

namespace bb::fs {
namespace {

// The content of <chunks>/LAYOUT: which layout the folder holds (chunk_store.h).
const std::string kLayout = "segments " + std::to_string(kChunkSegments) + "\n";
const std::string kLayoutSmallInMeta = "segments " + std::to_string(kChunkSegments) + ", small in meta\n";

Status Errno(int err, const std::string& what) { return Status(err, what + ": " + std::strerror(err)); }

std::string FileDirName(uint64_t file_id) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, file_id);
  return buf;
}

class PosixChunkStore final : public ChunkStore {
 public:
  PosixChunkStore(int dir_fd, std::string dir, uint64_t reserve, size_t max_open)
      : dir_fd_(dir_fd),
        dir_(dir),
        guard_(dir, reserve),
        fds_(max_open),
        reclaimer_(std::make_unique<Reclaimer>(dir_fd)) {}

  ~PosixChunkStore() override {
    reclaimer_.reset();  // before the folder's descriptor closes
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

  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
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

  Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    BB_RETURN_IF_ERROR(CheckChunkRange(chunk_size, offset, length));
    if (length == 0) return Status::Ok();
    uint64_t segment = ChunkSegment(index);
    auto fd = Open(file_id, segment, /*create=*/false);
    if (!fd) return fd.error().code() == ENOENT ? Status::Ok() : fd.error();
    uint64_t at = SegmentOffset(index, chunk_size) + offset;
    if (::fallocate((*fd)->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(at),
                    static_cast<off_t>(length)) == 0) {
      MarkDirty(file_id, segment);
      return Status::Ok();
    }
    if (errno != EOPNOTSUPP) return Errno(errno, "punch a hole in " + ChunkName(file_id, index));
    // A backing store without holes: write zeros over what the segment holds of the range.
    struct stat st {};
    if (::fstat((*fd)->fd, &st) != 0) return Errno(errno, "stat " + SegmentName(file_id, segment));
    uint64_t end = std::min(at + length, static_cast<uint64_t>(st.st_size));
    static const std::vector<char> kZeros(1 << 16);
    for (uint64_t pos = at; pos < end;) {
      ssize_t n =
          ::pwrite((*fd)->fd, kZeros.data(), std::min<uint64_t>(kZeros.size(), end - pos), static_cast<off_t>(pos));
      if (n < 0 && errno != EINTR) return Errno(errno, "zero " + ChunkName(file_id, index));
      if (n > 0) pos += static_cast<uint64_t>(n);
    }
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
    fds_.Forget(file_id);
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
    reclaimer_->Add(std::move(removed));
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

  // Whether `bytes` more fit above the reserve; ENOSPC only once the removals still pending could not make room.
  Status CheckSpace(uint64_t bytes) {
    Status s = guard_.Check(bytes);
    if (s.code() != ENOSPC || !reclaimer_->WaitForSpace()) return s;
    return guard_.Check(bytes);
  }

 private:
  // What a file has that is not yet durable.
  struct Dirty {
    std::set<uint64_t> segments;  // segments written
    bool new_segments = false;    // its folder gained segment files
    bool new_file_dir = false;    // the chunks folder gained its folder
  };

  std::string SegmentName(uint64_t file_id, uint64_t segment) const {
    return dir_ + "/" + FileDirName(file_id) + "/" + std::to_string(segment);
  }
  std::string ChunkName(uint64_t file_id, uint64_t index) const {
    return "chunk " + std::to_string(index) + " in " + SegmentName(file_id, ChunkSegment(index));
  }

  void MarkDirty(uint64_t file_id, uint64_t segment) {
    std::lock_guard lock(mu_);
    dirty_[file_id].segments.insert(segment);
  }

  Result<FdRef> Open(uint64_t file_id, uint64_t segment, bool create) {
    SegmentKey key{file_id, segment};
    if (FdRef cached = fds_.Find(key)) return cached;
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
    return fds_.Insert(key, std::make_shared<Fd>(fd));
  }

  const int dir_fd_;
  const std::string dir_;
  SpaceGuard guard_;
  FdCache fds_;
  std::mutex mu_;                         // guards dirty_
  std::map<uint64_t, Dirty> dirty_;       // not yet durable, per file
  std::unique_ptr<Reclaimer> reclaimer_;  // last: its thread starts after everything it uses
};

// Marks the folder as holding `layout` (LAYOUT.new, then renamed: never half written).
Status MarkLayout(int dir_fd, const std::string& dir, const std::string& layout) {
  int fd = ::openat(dir_fd, "LAYOUT.new", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Errno(errno, "create " + dir + "/LAYOUT.new");
  bool written = ::write(fd, layout.data(), layout.size()) == static_cast<ssize_t>(layout.size()) && ::fsync(fd) == 0;
  int err = errno;
  ::close(fd);
  if (!written) return Errno(err, "write " + dir + "/LAYOUT.new");
  if (::renameat(dir_fd, "LAYOUT.new", dir_fd, "LAYOUT") != 0) return Errno(errno, "create " + dir + "/LAYOUT");
  ::fsync(dir_fd);
  return Status::Ok();
}

// The folder must hold `want` (its LAYOUT file says so) or nothing yet, in which case it is
// marked as holding it. A folder of the plain layout holds no small values, so it is taken over
// for the layout that keeps them in the metadata store.
Status CheckLayout(int dir_fd, const std::string& dir, const std::string& want) {
  int fd = ::openat(dir_fd, "LAYOUT", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[64];
    ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    std::string found(buf, n > 0 ? static_cast<size_t>(n) : 0);
    if (found == want) return Status::Ok();
    if (found == kLayout && want == kLayoutSmallInMeta) return MarkLayout(dir_fd, dir, want);
    return Status(EINVAL, "chunk folder " + dir + " holds the layout \"" + found.substr(0, found.find('\n')) +
                              "\" (its LAYOUT file); this version reads \"" + want.substr(0, want.size() - 1) +
                              "\"; start from an empty root");
  }
  if (errno != ENOENT) return Errno(errno, "read " + dir + "/LAYOUT");
  std::vector<std::string> names = ListNames(::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::erase(names, "LAYOUT.new");  // left by a start that stopped while marking the folder
  if (!names.empty()) {
    return Status(EINVAL, "chunk folder " + dir +
                              " holds data but no LAYOUT file: it was written with a "
                              "file per chunk by an older version; start from an empty root");
  }
  return MarkLayout(dir_fd, dir, want);
}

}  // namespace

Result<std::unique_ptr<ChunkStore>> OpenPosixChunkStore(const std::string& root, uint64_t reserve_bytes,
                                                        size_t max_open, MetaStore* small_in) {
  std::string dir = root + "/chunks";
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Errno(errno, "create chunk folder " + dir);
  }
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno(errno, "open chunk folder " + dir);
  if (Status s = CheckLayout(fd, dir, small_in ? kLayoutSmallInMeta : kLayout); !s.ok()) {
    ::close(fd);
    return s;
  }
  auto posix = std::make_unique<PosixChunkStore>(fd, dir, reserve_bytes, max_open);
  if (small_in == nullptr) return std::unique_ptr<ChunkStore>(std::move(posix));
  PosixChunkStore* large = posix.get();  // owned by the inline store, which outlives its check
  return NewInlineChunkStore(std::move(posix), small_in, [large](uint64_t bytes) { return large->CheckSpace(bytes); });
}

}  // namespace bb::fs
