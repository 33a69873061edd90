#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>

#include <atomic>

#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

// LevelDB reports a full disk as an IOError whose text carries strerror(ENOSPC).
Status FromLevelDb(const leveldb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string text = s.ToString();
  int code = EIO;
  if (text.find("No space left") != std::string::npos) code = ENOSPC;
  return Status(code, std::string(what) + ": " + text);
}

class LevelDbMetaStore final : public MetaStore {
 public:
  LevelDbMetaStore(std::unique_ptr<const leveldb::FilterPolicy> filter, std::unique_ptr<leveldb::Cache> cache,
                   std::unique_ptr<leveldb::DB> db)
      : filter_(std::move(filter)), cache_(std::move(cache)), db_(std::move(db)) {}

  Result<std::string> Get(std::string_view key) override {
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
    leveldb::WriteOptions wo;
    wo.sync = sync;
    uint64_t seq = ++writes_;
    Status s = FromLevelDb(db_->Write(wo, &wb), "metadata write");
    if (s.ok() && sync) MarkSynced(seq);
    return s;
  }

  Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after, size_t limit) override {
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
    uint64_t seq = writes_.load();
    if (synced_.load() >= seq) return Status::Ok();  // nothing written since the last sync
    // An empty synced batch makes LevelDB fsync its log, covering every earlier write.
    leveldb::WriteBatch wb;
    leveldb::WriteOptions wo;
    wo.sync = true;
    Status s = FromLevelDb(db_->Write(wo, &wb), "metadata sync");
    if (s.ok()) MarkSynced(seq);
    return s;
  }

 private:
  void MarkSynced(uint64_t seq) {
    uint64_t cur = synced_.load();
    while (cur < seq && !synced_.compare_exchange_weak(cur, seq)) {
    }
  }

  // Declared before db_ so that they are destroyed after it.
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<leveldb::DB> db_;
  // Writes issued, and the highest write known durable: Sync skips the fsync when equal.
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> synced_{0};
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenLevelDbMetaStore(const std::string& dir) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.paranoid_checks = true;
  options.write_buffer_size = 16 << 20;
  // Point lookups dominate (lookup, getattr, create-if-absent): a Bloom filter spares reads of
  // tables that do not hold the key.
  std::unique_ptr<const leveldb::FilterPolicy> filter(leveldb::NewBloomFilterPolicy(10));
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(64 << 20));
  options.filter_policy = filter.get();
  options.block_cache = cache.get();
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, dir, &raw);
  if (!s.ok()) {
    std::string text = s.ToString();
    int code = text.find("lock") != std::string::npos ? EBUSY : EIO;
    if (text.find("No space left") != std::string::npos) code = ENOSPC;
    return Status(code, "cannot open metadata database " + dir + ": " + text);
  }
  return std::unique_ptr<MetaStore>(
      new LevelDbMetaStore(std::move(filter), std::move(cache), std::unique_ptr<leveldb::DB>(raw)));
}

}  // namespace bb::fs
