#include <leveldb/db.h>
#include <leveldb/write_batch.h>

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
  explicit LevelDbMetaStore(std::unique_ptr<leveldb::DB> db) : db_(std::move(db)) {}

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
    return FromLevelDb(db_->Write(wo, &wb), "metadata write");
  }

  Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after,
                                     size_t limit) override {
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
    // An empty synced batch makes LevelDB fsync its log, covering every earlier write.
    leveldb::WriteBatch wb;
    leveldb::WriteOptions wo;
    wo.sync = true;
    return FromLevelDb(db_->Write(wo, &wb), "metadata sync");
  }

 private:
  std::unique_ptr<leveldb::DB> db_;
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenLevelDbMetaStore(const std::string& dir) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.paranoid_checks = true;
  options.write_buffer_size = 16 << 20;
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, dir, &raw);
  if (!s.ok()) {
    std::string text = s.ToString();
    int code = text.find("lock") != std::string::npos ? EBUSY : EIO;
    if (text.find("No space left") != std::string::npos) code = ENOSPC;
    return Status(code, "cannot open metadata database " + dir + ": " + text);
  }
  return std::unique_ptr<MetaStore>(new LevelDbMetaStore(std::unique_ptr<leveldb::DB>(raw)));
}

}  // namespace bb::fs
