#include <fcntl.h>
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>

#include "fs/store/meta_store.h"
#include "fs/store/space_guard.h"

namespace bb::fs {
namespace {

using Clock = std::chrono::steady_clock;

// The memtable's size: what a reopen writes out as a table at most. The room a reopen needs is
// that table, a new manifest and log: the memtables' size now and a margin.
constexpr uint64_t kWriteBuffer = 8 << 20;
constexpr uint64_t kReopenMargin = 1 << 20;
constexpr uint64_t kReopenRoom = kWriteBuffer + kReopenMargin;
// How often a missing spare file is looked at again (in writes), and a closed database retried.
constexpr uint64_t kSpareEvery = 1024;
constexpr auto kRetryClosed = std::chrono::milliseconds(200);

// LevelDB reports a full disk as an IOError whose text carries strerror(ENOSPC).
Status FromLevelDb(const leveldb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string text = s.ToString();
  int code = EIO;
  if (text.find("No space left") != std::string::npos) code = ENOSPC;
  if (text.find("already held by process") != std::string::npos) code = EBUSY;  // its LOCK file
  return Status(code, what.empty() ? text : std::string(what) + ": " + text);
}

std::string ParentOf(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// A failed write can leave a torn record in LevelDB's log, and LevelDB goes on appending after it:
// the records behind it, though acknowledged, would not be read back when the database is next
// opened (with paranoid checks it would not open at all). So after a failed write no other write
// goes to that log: writes take turns, and the one that failed reopens the database, which reads
// the log up to the tear, writes what it held out as a table and starts a fresh log. A reopen
// needs room for that table: `<dir>.spare`, made at open, is given back for it when the disk is
// full; without room the database stays open for reads and refuses writes until there is.
class LevelDbMetaStore final : public MetaStore {
 public:
  LevelDbMetaStore(std::string dir, LevelDbOptions options)
      : dir_(std::move(dir)),
        parent_(ParentOf(dir_)),
        spare_path_(dir_ + ".spare"),
        options_(std::move(options)),
        spare_bytes_(options_.spare_bytes == 0 ? 0 : std::max(options_.spare_bytes, kReopenRoom)),
        filter_(leveldb::NewBloomFilterPolicy(10)),
        cache_(leveldb::NewLRUCache(64 << 20)) {}

  Status Open() {
    std::lock_guard w(write_mu_);
    std::unique_lock x(db_mu_);
    auto db = OpenDb();
    if (!db) return db.error().Annotate("cannot open metadata database " + dir_);  // text as LevelDB gives it
    db_ = std::move(*db);
    MakeSpare();
    return Status::Ok();
  }

  Result<std::string> Get(std::string_view key) override {
    std::shared_lock r(db_mu_);
    BB_RETURN_IF_ERROR(ReadyToRead(r));
    std::string value;
    leveldb::Status s = db_->Get(leveldb::ReadOptions(), leveldb::Slice(key.data(), key.size()), &value);
    if (s.IsNotFound()) return Status(ENOENT, "no such key");
    if (!s.ok()) return FromLevelDb(s, "metadata get");
    return value;
  }

  Status Write(const WriteBatch& batch, bool sync) override {
    leveldb::WriteBatch wb;
    for (const auto& op : batch.ops) {
      if (op.is_delete) {
        wb.Delete(op.key);
      } else {
        wb.Put(op.key, op.value);
      }
    }
    return Apply(&wb, sync, "metadata write");
  }

  Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after, size_t limit) override {
    std::shared_lock r(db_mu_);
    BB_RETURN_IF_ERROR(ReadyToRead(r));
    std::vector<KeyValue> out;
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(leveldb::ReadOptions()));
    std::string start(prefix);
    start.append(start_after);
    leveldb::Slice pfx(prefix.data(), prefix.size());
    for (it->Seek(start); it->Valid() && out.size() < limit; it->Next()) {
      if (!it->key().starts_with(pfx)) break;
      if (!start_after.empty() && it->key() == leveldb::Slice(start)) continue;
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    BB_RETURN_IF_ERROR(FromLevelDb(it->status(), "metadata scan"));
    return out;
  }

  Status Sync() override {
    if (synced_.load() >= writes_.load()) return Status::Ok();  // nothing written since the last sync
    // An empty synced batch makes LevelDB fsync its log, covering every earlier write.
    leveldb::WriteBatch wb;
    return Apply(&wb, true, "metadata sync");
  }

 private:
  // A database closed by a reopen that failed is tried again by reads too (at most every 200 ms),
  // so that they come back as soon as there is room. REQUIRES `r` to hold db_mu_.
  Status ReadyToRead(std::shared_lock<std::shared_mutex>& r) {
    if (db_) return Status::Ok();
    r.unlock();
    {
      std::lock_guard w(write_mu_);
      (void)ReopenIfNeeded();
    }
    r.lock();
    return db_ ? Status::Ok() : closed_;
  }

  Status Apply(leveldb::WriteBatch* wb, bool sync, std::string_view what) {
    std::lock_guard w(write_mu_);
    BB_RETURN_IF_ERROR(ReopenIfNeeded());
    leveldb::WriteOptions wo;
    wo.sync = sync;
    uint64_t seq = ++writes_;
    leveldb::Status s;
    {
      std::shared_lock r(db_mu_);
      s = db_->Write(wo, wb);
    }
    if (!s.ok()) {
      Status failed = FromLevelDb(s, what);
      needs_reopen_ = true;
      // The spare goes at the first refusal, so that the reopen below finds room.
      if (failed.code() == ENOSPC) GiveBackSpare();
      (void)ReopenIfNeeded();
      return failed;
    }
    if (sync) MarkSynced(seq);
    if (seq % kSpareEvery == 0) MakeSpare();
    return Status::Ok();
  }

  // Reopens the database after a failed write once there is room for it. Caller holds write_mu_.
  Status ReopenIfNeeded() {
    if (!needs_reopen_) return Status::Ok();
    if (Clock::now() < retry_at_) return RefusedStatus();
    retry_at_ = Clock::now() + kRetryClosed;
    if (FreeNow() < MemtableBytes() + kReopenMargin) {
      refused_ = Status(ENOSPC, "metadata database " + dir_ + ": no room to start a fresh log after a failed write");
      return refused_;
    }
    std::unique_lock x(db_mu_);
    db_.reset();
    auto db = OpenDb();
    if (!db) {
      closed_ = db.error().Annotate("metadata database " + dir_ + " closed after a failed write");
      refused_ = closed_;
      Warn(closed_.ToString());
      return refused_;
    }
    db_ = std::move(*db);
    needs_reopen_ = false;
    Warn("metadata database " + dir_ + " reopened on a fresh log after a failed write");
    return Status::Ok();
  }

  Status RefusedStatus() const {
    return refused_.ok() ? Status(ENOSPC, "metadata database " + dir_ + " is waiting for room") : refused_;
  }

  // Free bytes on the database's filesystem; 0 when unknown (no reopen, no spare then).
  uint64_t FreeNow() const {
    auto free_bytes = FreeBytes(parent_);
    return free_bytes ? *free_bytes : 0;
  }

  // What the memtables hold: LevelDB counts them with the block cache, which is ours to subtract.
  uint64_t MemtableBytes() {
    std::shared_lock r(db_mu_);
    std::string usage;
    if (!db_ || !db_->GetProperty("leveldb.approximate-memory-usage", &usage)) return kWriteBuffer;
    uint64_t total = std::strtoull(usage.c_str(), nullptr, 10);
    uint64_t cached = cache_->TotalCharge();
    return total > cached ? total - cached : 0;
  }

  leveldb::Options MakeOptions(bool paranoid) const {
    leveldb::Options o;
    o.create_if_missing = true;
    o.paranoid_checks = paranoid;
    o.write_buffer_size = kWriteBuffer;
    // Point lookups dominate (lookup, getattr, create-if-absent): a Bloom filter spares reads of
    // tables that do not hold the key.
    o.filter_policy = filter_.get();
    o.block_cache = cache_.get();
    if (options_.env) o.env = options_.env;
    return o;
  }

  // Opens with full checks. A log damaged by a write cut short (a crash while the disk was full)
  // is read up to the damage instead, with a warning: refusing to open would lose all of it.
  // Without room for the table the open writes, the spare is given back and the open tried again.
  Result<std::unique_ptr<leveldb::DB>> OpenDb() {
    leveldb::DB* raw = nullptr;
    bool paranoid = true;
    leveldb::Status s = leveldb::DB::Open(MakeOptions(paranoid), dir_, &raw);
    if (s.IsCorruption()) {
      Warn("metadata database " + dir_ + ": " + s.ToString() +
           "; reading it up to the damage (what was dropped is in " + dir_ + "/LOG)");
      paranoid = false;
      s = leveldb::DB::Open(MakeOptions(paranoid), dir_, &raw);
    }
    if (!s.ok() && FromLevelDb(s, "").code() == ENOSPC && GiveBackSpare()) {
      s = leveldb::DB::Open(MakeOptions(paranoid), dir_, &raw);
    }
    if (!s.ok()) return FromLevelDb(s, "");
    return std::unique_ptr<leveldb::DB>(raw);
  }

  // Makes the spare file when it is missing and the disk has room for it and more.
  void MakeSpare() {
    if (spare_bytes_ == 0 || ::access(spare_path_.c_str(), F_OK) == 0) return;
    if (FreeNow() < 2 * spare_bytes_ + kReopenRoom) return;
    int fd = ::open(spare_path_.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return;
    int err = ::posix_fallocate(fd, 0, static_cast<off_t>(spare_bytes_));
    ::close(fd);
    if (err != 0) ::unlink(spare_path_.c_str());
  }

  bool GiveBackSpare() {
    if (spare_bytes_ == 0 || ::unlink(spare_path_.c_str()) != 0) return false;
    Warn("metadata database " + dir_ + ": the disk is full; gave back " + spare_path_);
    return true;
  }

  void Warn(const std::string& text) const {
    if (options_.warn) options_.warn(text);
  }

  void MarkSynced(uint64_t seq) {
    uint64_t cur = synced_.load();
    while (cur < seq && !synced_.compare_exchange_weak(cur, seq)) {
    }
  }

  const std::string dir_;
  const std::string parent_;  // the folder dir_ is in: where its free space is read
  const std::string spare_path_;
  const LevelDbOptions options_;
  const uint64_t spare_bytes_;  // at least a reopen's room, or 0
  // Declared before db_ so that they are destroyed after it.
  const std::unique_ptr<const leveldb::FilterPolicy> filter_;
  const std::unique_ptr<leveldb::Cache> cache_;
  std::mutex write_mu_;  // one write at a time; guards the four fields below
  bool needs_reopen_ = false;
  Clock::time_point retry_at_{};
  Status refused_;           // why writes are refused while needs_reopen_
  Status closed_;            // why db_ is null; also guarded by db_mu_
  std::shared_mutex db_mu_;  // shared to use db_, exclusive to reopen it
  std::unique_ptr<leveldb::DB> db_;
  // Writes issued, and the highest write known durable: Sync skips the fsync when equal.
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> synced_{0};
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenLevelDbMetaStore(const std::string& dir, LevelDbOptions options) {
  auto store = std::make_unique<LevelDbMetaStore>(dir, std::move(options));
  BB_RETURN_IF_ERROR(store->Open());
  return std::unique_ptr<MetaStore>(std::move(store));
}

}  // namespace bb::fs
