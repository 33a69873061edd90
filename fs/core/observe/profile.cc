#include "fs/core/observe/profile.h"

#include <algorithm>

namespace bb::fs {
namespace {

constexpr int64_t kBucketNs = 1'000'000'000;
constexpr size_t kMaxBuckets = 86400;  // a day; later seconds count in the last bucket

// "/ws/a/b" -> "/a/b"; "/ws" -> "/". A view into `path`: the hooks run once per operation and
// copy a name only the first time they see it.
std::string_view InWorkspace(const std::string& path, const std::string& domain) {
  size_t skip = domain.size() + 1;
  return path.size() <= skip ? std::string_view("/") : std::string_view(path).substr(skip);
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

}  // namespace

size_t SizeBin(uint64_t bytes) {
  static constexpr uint64_t kUpper[kSizeBins - 1] = {100,     1024,        10240,        102400,    1 << 20,
                                                     4 << 20, 10ULL << 20, 100ULL << 20, 1ULL << 30};
  for (size_t i = 0; i < kSizeBins - 1; ++i) {
    if (bytes < kUpper[i]) return i;
  }
  return kSizeBins - 1;
}

struct ProfileWorkspace {
  std::string domain;
  mutable std::mutex mu;  // guards `data` and `stopped`
  ProfileSnapshot data;
  bool stopped = false;  // Stop took `data`: handles still held count nothing

  FileProfile& File(uint64_t file_id, const std::string& path, int64_t now) {
    FileProfile& f = data.files[file_id];
    if (!path.empty()) {
      std::string_view rel = InWorkspace(path, domain);
      if (f.path != rel) f.path.assign(rel);  // a rename changes it
    }
    if (f.first_ns == 0) f.first_ns = now;
    f.last_ns = std::max(f.last_ns, now);
    return f;
  }
  DirProfile& Dir(const std::string& path) {
    std::string_view rel = InWorkspace(path, domain);
    auto it = data.dirs.find(rel);
    if (it == data.dirs.end()) {
      it = data.dirs.emplace(std::string(rel), DirProfile{}).first;
      it->second.path = it->first;
    }
    return it->second;
  }
  TimeBucket& Bucket(int64_t now) {
    int64_t i = std::max<int64_t>(0, (now - data.start_ns) / kBucketNs);
    size_t at = std::min(static_cast<size_t>(i), kMaxBuckets - 1);
    if (data.timeline.size() <= at) data.timeline.resize(at + 1);
    return data.timeline[at];
  }
  void Meta(int64_t now) { Bucket(now).meta_ops++; }
};

void Profiles::Start(const std::string& domain, int64_t now_ns) {
  auto w = std::make_shared<Workspace>();
  w->domain = domain;
  w->data.node = node_;
  w->data.start_ns = now_ns;
  std::unique_lock lock(mu_);
  workspaces_[domain] = std::move(w);
  active_.store(true, std::memory_order_relaxed);
}

std::optional<ProfileSnapshot> Profiles::Stop(const std::string& domain) {
  std::shared_ptr<Workspace> w;
  {
    std::unique_lock lock(mu_);
    auto it = workspaces_.find(domain);
    if (it == workspaces_.end()) return std::nullopt;
    w = std::move(it->second);
    workspaces_.erase(it);
    active_.store(!workspaces_.empty(), std::memory_order_relaxed);
  }
  std::lock_guard lock(w->mu);
  w->stopped = true;
  return std::move(w->data);
}

std::optional<ProfileSnapshot> Profiles::Snapshot(const std::string& domain) const {
  auto w = For(domain);
  if (!w) return std::nullopt;
  std::lock_guard lock(w->mu);
  return w->data;
}

ProfileHandle Profiles::For(const std::string& domain) const {
  if (!active() || domain.empty()) return nullptr;
  std::shared_lock lock(mu_);
  auto it = workspaces_.find(domain);
  return it == workspaces_.end() ? nullptr : it->second;
}

void Profiles::Created(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, pid_t,
                       int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  DirProfile& parent = w->Dir(ParentOf(path));
  parent.creates++;
  parent.made_entries = true;
  if (is_dir) {
    w->Dir(path).created = true;
  } else {
    w->File(file_id, path, now).created = true;
  }
}

void Profiles::Opened(const ProfileHandle& w, const std::string& path, uint64_t file_id, pid_t, int64_t now) {
  if (!w) return;
  std::lock_guard lock(w->mu);
  if (w->stopped) return;
  w->Meta(now);
  FileProfile& f = w->File(file_id, path, now);
  f.opens++;
  f.opened = true;
}

void Profiles::Accessed(const ProfileHandle& w, uint64_t file_id, bool write, uint64_t offset, uint64_t bytes,
                        bool append, pid_t pid, int64_t now) {
  if (!w) return;
  std::lock_guard lock(w->mu);
  if (w->stopped) return;
  TimeBucket& b = w->Bucket(now);
  b.data_ops++;
  (write ? b.bytes_written : b.bytes_read) += bytes;
  FileProfile& f = w->File(file_id, "", now);
  auto [last, first_access] = f.last_end.try_emplace(pid, 0);
  bool consecutive = !first_access && offset == last->second;
  bool sequential = !first_access && offset >= last->second;
  if (first_access) {
    consecutive = offset == 0;
    sequential = true;
  }
  last->second = offset + bytes;
  if (!consecutive) f.seeks++;
  f.max_offset = std::max(f.max_offset, offset + bytes);
  if (write) {
    f.writes++;
    f.bytes_written += bytes;
    f.write_sizes[SizeBin(bytes)]++;
    f.consec_writes += consecutive;
    f.seq_writes += sequential;
    f.append_writes += append;
    f.written = true;
    f.writers.insert(pid);
  } else {
    f.reads++;
    f.bytes_read += bytes;
    f.read_sizes[SizeBin(bytes)]++;
    f.consec_reads += consecutive;
    f.seq_reads += sequential;
    f.read = true;
    f.readers.insert(pid);
  }
}

void Profiles::Stat(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, bool count,
                    int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  if (count) w->Meta(now);
  if (is_dir) {
    w->Dir(path).looked_up = true;
    return;
  }
  FileProfile& f = w->File(file_id, path, now);
  if (count) f.stats++;
  f.stat = true;
}

void Profiles::Lookup(const std::string& domain, const std::string& dir, int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  DirProfile& d = w->Dir(dir);
  d.lookups++;
  d.looked_up = true;
}

void Profiles::ListDir(const std::string& domain, const std::string& dir, int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  DirProfile& d = w->Dir(dir);
  d.readdirs++;
  d.listed = true;
}

void Profiles::Removed(const std::string& domain, const std::string& path, uint64_t file_id, bool is_dir, int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  w->Dir(ParentOf(path)).unlinks++;
  if (!is_dir) w->File(file_id, path, now).unlinks++;
}

void Profiles::Renamed(const std::string& domain, const std::string& from, const std::string& to, uint64_t file_id,
                       int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  w->Dir(ParentOf(from)).unlinks++;
  DirProfile& d = w->Dir(ParentOf(to));
  d.creates++;
  d.made_entries = true;
  w->File(file_id, to, now).renames++;
}

void Profiles::Synced(const ProfileHandle& w, uint64_t file_id, int64_t now) {
  if (!w) return;
  std::lock_guard lock(w->mu);
  if (w->stopped) return;
  w->Meta(now);
  w->File(file_id, "", now).fsyncs++;
}

void Profiles::Truncated(const std::string& domain, uint64_t file_id, int64_t now) {
  auto w = For(domain);
  if (!w) return;
  std::lock_guard lock(w->mu);
  w->Meta(now);
  w->File(file_id, "", now).truncates++;
}

}  // namespace bb::fs
