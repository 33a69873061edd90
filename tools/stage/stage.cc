// Stage: the phases of one staging run, each a set of independent tasks run by the thread pool —
// check (hash what an earlier run left), copy (pieces), sync, verify (read back), finish
// (permissions, owners, times) — with the directories, symlinks and FIFOs made first and the
// directories' own attributes set last, deepest first.
#include "tools/stage/stage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace bb::stage {
namespace {

constexpr size_t kBlock = size_t{1} << 20;  // the unit of each read and write inside a piece

std::string Join(const std::string& root, const std::string& rel) { return rel.empty() ? root : root + "/" + rel; }

struct FileJob {
  const Entry* e = nullptr;
  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  std::vector<uint64_t> src_hash, dst_hash;
  std::once_flag created;
  std::mutex mu;
  std::string error;                  // the first failure
  bool copy = true;                   // false: the destination already held it (checked)
  std::atomic<size_t> left{0};        // pieces of the copy not yet read back
  std::atomic<bool> complete{false};  // compared, finished and counted (Stager::Complete)

  void Fail(const std::string& why) {
    std::lock_guard lock(mu);
    if (error.empty()) error = why;
  }
  bool failed() {
    std::lock_guard lock(mu);
    return !error.empty();
  }
};

// Reads [off, off+len) of `fd` block by block, hashing; with `out` >= 0 also writes it there.
Result<uint64_t> HashRange(int fd, int out, uint64_t off, uint64_t len, const std::string& what) {
  thread_local std::vector<char> buf(kBlock);
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  Status s;
  for (uint64_t done = 0; done < len && s.ok();) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kBlock, len - done));
    ssize_t n = ::pread(fd, buf.data(), want, static_cast<off_t>(off + done));
    if (n <= 0) {
      s = Status(n < 0 ? errno : EIO, (n < 0 ? "cannot read " : "short read of ") + what);
      break;
    }
    XXH3_64bits_update(st, buf.data(), static_cast<size_t>(n));
    if (out >= 0 && ::pwrite(out, buf.data(), static_cast<size_t>(n), static_cast<off_t>(off + done)) != n)
      s = Status(errno ? errno : EIO, "cannot write the copy of " + what);
    done += static_cast<uint64_t>(n);
  }
  uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  if (!s.ok()) return s;
  return h;
}

// Runs fn(0..n-1) on `threads` threads.
void Parallel(size_t n, int threads, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : pool) t.join();
}

// Runs first(i) for every i < n on `threads` threads and, as each returns true, second(i) on
// `threads` more: the second stage of some items overlaps the first of others.
void Pipeline(size_t n, int threads, const std::function<bool(size_t)>& first,
              const std::function<void(size_t)>& second) {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<size_t> ready;
  size_t firsts = 0;
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  const int t = std::max(1, threads);
  for (int k = 0; k < t; ++k) {
    pool.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) {
        bool go = first(i);
        std::lock_guard lock(mu);
        if (go) ready.push_back(i);
        ++firsts;
        cv.notify_all();
      }
    });
  }
  for (int k = 0; k < t; ++k) {
    pool.emplace_back([&] {
      for (;;) {
        size_t i;
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return !ready.empty() || firsts == n; });
          if (ready.empty()) return;
          i = ready.front();
          ready.pop_front();
        }
        second(i);
      }
    });
  }
  for (auto& th : pool) th.join();
}

class Stager {
 public:
  Stager(const Options& o, std::vector<Entry> entries, std::map<std::string, ManifestFile> old)
      : o_(o), entries_(std::move(entries)), old_(std::move(old)) {}

  Report Run(const std::function<void(const Progress&)>& on_progress);

 private:
  std::string Src(const Entry& e) const { return Join(o_.src, e.rel); }
  std::string Dst(const Entry& e) const { return Join(o_.dst, e.rel); }
  void MakeNonFiles();
  void PlanFiles();
  void RunPieces(bool check);
  void CopyPiece(FileJob& f, size_t i);
  void CheckPiece(FileJob& f, size_t i);
  void SyncCopy(FileJob& f);
  void Complete(FileJob& f);
  void Finish(const Entry& e, FileJob* f);
  void Done(FileJob& f, uint64_t bytes);
  void ProgressLoop(const std::function<void(const Progress&)>& on_progress);
  void WriteManifest();
  void Failure(const std::string& rel, const std::string& why);

  const Options& o_;
  std::vector<Entry> entries_;
  std::map<std::string, ManifestFile> old_;
  std::vector<std::unique_ptr<FileJob>> files_;
  std::mutex mu_;  // guards report_.failures, staged_
  std::map<std::string, ManifestFile> staged_;
  Report report_;
  std::atomic<uint64_t> files_done_{0}, bytes_done_{0};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  bool finished_ = false;
};

void Stager::Failure(const std::string& rel, const std::string& why) {
  std::lock_guard lock(mu_);
  report_.failures.push_back((rel.empty() ? o_.dst : rel) + ": " + why);
}

// Directories (0700 until the end, so the run can write into them), symlinks and FIFOs.
void Stager::MakeNonFiles() {
  for (const Entry& e : entries_) {
    std::string d = Dst(e);
    struct stat st;
    bool exists = ::lstat(d.c_str(), &st) == 0;
    if (e.kind == Kind::kDir) {
      if (exists && !S_ISDIR(st.st_mode)) Failure(e.rel, "the destination is there and not a directory");
      if (!exists && ::mkdir(d.c_str(), 0700) != 0) Failure(e.rel, std::string("mkdir: ") + std::strerror(errno));
    } else if (e.kind == Kind::kSymlink) {
      if (exists && S_ISDIR(st.st_mode)) {
        Failure(e.rel, "the destination is a directory");
        continue;
      }
      if (exists) ::unlink(d.c_str());
      if (::symlink(e.target.c_str(), d.c_str()) != 0) Failure(e.rel, std::string("symlink: ") + std::strerror(errno));
    } else if (e.kind == Kind::kFifo) {
      if (!exists && ::mkfifo(d.c_str(), 0600) != 0) Failure(e.rel, std::string("mkfifo: ") + std::strerror(errno));
    } else if (e.kind == Kind::kOther) {
      Failure(e.rel, "not staged: a socket or device node");
    }
  }
}

void Stager::PlanFiles() {
  for (const Entry& e : entries_) {
    if (e.kind != Kind::kFile) continue;
    auto f = std::make_unique<FileJob>();
    f->e = &e;
    f->pieces = Pieces(e.size, o_.piece_bytes);
    f->src_hash.assign(f->pieces.size(), 0);
    f->dst_hash.assign(f->pieces.size(), 0);
    auto it = old_.find(e.rel);
    struct stat st;
    f->copy = !(it != old_.end() && it->second.size == e.size && it->second.mtime_ns == e.mtime_ns &&
                ::stat(Dst(e).c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == e.size);
    report_.progress.bytes_total += e.size;
    files_.push_back(std::move(f));
  }
  report_.progress.files_total = files_.size();
}

void Stager::CheckPiece(FileJob& f, size_t i) {
  int fd = ::open(Dst(*f.e).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    f.Fail("cannot open the earlier copy");
    return;
  }
  auto [off, len] = f.pieces[i];
  // Synced pages are clean: dropping them makes the read come from the file system, not from
  // this kernel's copy of what was just written.
  (void)::posix_fadvise(fd, static_cast<off_t>(off), static_cast<off_t>(len), POSIX_FADV_DONTNEED);
  auto h = HashRange(fd, -1, off, len, Dst(*f.e));
  ::close(fd);
  if (!h) f.Fail(h.error().message());
  if (h) f.dst_hash[i] = *h;
}

void Stager::CopyPiece(FileJob& f, size_t i) {
  std::string src = Src(*f.e), dst = Dst(*f.e);
  std::call_once(f.created, [&] {
    int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(f.e->size)) != 0) f.Fail("cannot create " + dst);
    if (fd >= 0) ::close(fd);
  });
  if (f.failed()) return;
  int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC), out = ::open(dst.c_str(), O_WRONLY | O_CLOEXEC);
  if (in < 0 || out < 0) {
    f.Fail(std::string("cannot open ") + (in < 0 ? src : dst) + ": " + std::strerror(errno));
  } else {
    auto [off, len] = f.pieces[i];
    auto h = HashRange(in, out, off, len, src);
    if (!h) f.Fail(h.error().message());
    if (h) f.src_hash[i] = *h;
    if (h) bytes_done_ += len;
  }
  if (in >= 0) ::close(in);
  if (out >= 0) ::close(out);
}

// Every piece of every file that needs it, in parallel: the check of an earlier copy, or the
// copy and its sync on `threads` threads while `threads` more read back the pieces already
// synced — so that reads back overlap writes, and the link carries both directions at once.
void Stager::RunPieces(bool check) {
  std::vector<std::pair<FileJob*, size_t>> tasks;
  for (auto& f : files_) {
    if (f->copy == check) continue;  // check: files with a manifest entry; copy: the others
    for (size_t i = 0; i < f->pieces.size(); ++i) tasks.emplace_back(f.get(), i);
  }
  if (check) {
    Parallel(tasks.size(), o_.threads, [&](size_t t) { CheckPiece(*tasks[t].first, tasks[t].second); });
    return;
  }
  for (auto& f : files_) f->left = f->copy ? f->pieces.size() : 0;
  Pipeline(
      tasks.size(), o_.threads,
      [&](size_t t) {
        auto [f, i] = tasks[t];
        CopyPiece(*f, i);
        if (!f->failed()) SyncCopy(*f);
        return !f->failed();
      },
      [&](size_t t) {
        auto [f, i] = tasks[t];
        CheckPiece(*f, i);
        // A file's last piece read back: it counts (and the manifest keeps it) now, so that an
        // interrupted run keeps every file it finished.
        if (--f->left == 0) Complete(*f);
      });
}

void Stager::Complete(FileJob& f) {
  if (f.complete.exchange(true)) return;
  if (!f.failed() && f.src_hash != f.dst_hash) f.Fail("the copy does not read back as the source (checksum)");
  if (!f.failed()) Finish(*f.e, &f);
  Done(f, 0);
}

// Makes what was written of the copy durable (and, on the burst buffer, every write of it
// arrived where it is stored) before it is read back.
void Stager::SyncCopy(FileJob& f) {
  int fd = ::open(Dst(*f.e).c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::fdatasync(fd) != 0) f.Fail(std::string("cannot sync the copy: ") + std::strerror(errno));
  if (fd >= 0 && ::close(fd) != 0) f.Fail(std::string("close of the copy: ") + std::strerror(errno));
}

void Stager::Done(FileJob& f, uint64_t bytes) {
  files_done_++;
  if (bytes) bytes_done_ += bytes;
  if (f.failed()) return Failure(f.e->rel, f.error);
  std::lock_guard lock(mu_);
  staged_[f.e->rel] = ManifestFile{f.e->size, f.e->mtime_ns, FileHash(f.src_hash)};
}

// Permissions, owner and times of one entry, as cp -a leaves them.
void Stager::Finish(const Entry& e, FileJob* f) {
  std::string d = Dst(e);
  struct timespec ts[2] = {{e.atime_ns / 1'000'000'000, e.atime_ns % 1'000'000'000},
                           {e.mtime_ns / 1'000'000'000, e.mtime_ns % 1'000'000'000}};
  bool link = e.kind == Kind::kSymlink;
  if (::geteuid() == 0 && ::lchown(d.c_str(), e.uid, e.gid) != 0 && f) f->Fail("cannot set the owner");
  if (!link && ::chmod(d.c_str(), e.mode) != 0 && f) f->Fail("cannot set the permissions");
  if (::utimensat(AT_FDCWD, d.c_str(), ts, link ? AT_SYMLINK_NOFOLLOW : 0) != 0 && f) f->Fail("cannot set the times");
}

void Stager::ProgressLoop(const std::function<void(const Progress&)>& on_progress) {
  std::unique_lock lock(done_mu_);
  int ticks = 0;
  while (!done_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return finished_; })) {
    Progress p = report_.progress;
    p.files_done = files_done_;
    p.bytes_done = bytes_done_;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (on_progress) on_progress(p);
    // An interrupted run keeps what it verified: every second, every 5 s past 10,000 files.
    if (++ticks % (files_done_ < 10000 ? 1 : 5) == 0) WriteManifest();
  }
}

void Stager::WriteManifest() {
  Manifest m{o_.src, o_.dst, o_.piece_bytes, {}};
  {
    std::lock_guard lock(mu_);
    for (const auto& [rel, f] : staged_) m.files.emplace_back(rel, f);
  }
  // Of this process alone: stagers on several nodes may write beside one destination at once.
  std::string tmp = report_.manifest + ".tmp." + std::to_string(::getpid());
  std::ofstream out(tmp, std::ios::trunc);
  out << FormatManifest(m);
  out.close();
  if (!out || ::rename(tmp.c_str(), report_.manifest.c_str()) != 0) Failure("", "cannot write the manifest " + tmp);
}

Report Stager::Run(const std::function<void(const Progress&)>& on_progress) {
  report_.manifest = o_.manifest.empty() ? o_.dst + ".bbstage.json" : o_.manifest;
  MakeNonFiles();
  PlanFiles();
  std::thread progress([&] { ProgressLoop(on_progress); });
  RunPieces(/*check=*/true);
  for (auto& f : files_) {
    if (f->copy) continue;
    if (!f->failed() && FileHash(f->dst_hash) == old_[f->e->rel].hash) {
      report_.files_verified_already++;
      f->src_hash = f->dst_hash;
      Done(*f, f->e->size);
    } else {
      f->copy = true;  // differs, or unreadable: copy it again
      std::lock_guard lock(f->mu);
      f->error.clear();
    }
  }
  RunPieces(/*check=*/false);
  // Files with no piece (empty) or a piece that failed to copy were not completed above.
  Parallel(files_.size(), o_.threads, [&](size_t k) {
    if (files_[k]->copy) Complete(*files_[k]);
  });
  for (auto& f : files_) {
    bool copied = f->copy && !f->failed();
    report_.files_copied += copied;
    report_.bytes_copied += copied ? f->e->size : 0;
  }
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->kind == Kind::kDir || it->kind == Kind::kSymlink || it->kind == Kind::kFifo) Finish(*it, nullptr);
  }
  {
    std::lock_guard lock(done_mu_);
    finished_ = true;
  }
  done_cv_.notify_all();
  progress.join();
  WriteManifest();
  report_.progress.files_done = files_done_;
  report_.progress.bytes_done = bytes_done_;
  report_.progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return report_;
}

Result<std::map<std::string, ManifestFile>> ReadOld(const std::string& path) {
  std::map<std::string, ManifestFile> old;
  std::ifstream in(path);
  if (!in) return old;  // no earlier run
  std::stringstream text;
  text << in.rdbuf();
  BB_ASSIGN_OR_RETURN(Manifest m, ParseManifest(text.str(), path));
  for (auto& [rel, f] : m.files) old[rel] = f;
  return old;
}

}  // namespace

Result<Report> Stage(const Options& o, const std::function<void(const Progress&)>& on_progress) {
  if (o.piece_bytes == 0) return Status(EINVAL, "the piece size must be at least 1 byte");
  BB_ASSIGN_OR_RETURN(std::vector<Entry> entries, Walk(o.src));
  Options opts = o;
  struct stat st;
  if (entries.front().kind != Kind::kDir && ::stat(o.dst.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::string base = o.src.substr(o.src.find_last_of('/') + 1);
    opts.dst = o.dst + "/" + base;  // a file staged into a directory keeps its name
  }
  std::string manifest = opts.manifest.empty() ? opts.dst + ".bbstage.json" : opts.manifest;
  BB_ASSIGN_OR_RETURN(auto old, ReadOld(manifest));
  Stager s(opts, std::move(entries), std::move(old));
  return s.Run(on_progress);
}

}  // namespace bb::stage
