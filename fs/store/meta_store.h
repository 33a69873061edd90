// MetaStore: an ordered key-value store holding one node's share of the metadata.
//
// Keys and values are byte strings ordered bytewise (fs/store/metadata.h defines the keys).
// Two implementations: OpenLevelDbMetaStore (the real one, persistent) and NewMemoryMetaStore
// (an in-memory twin for unit tests). One contract test (meta_store_test.cc) runs against both.
//
// Thread-safety: every method may be called concurrently. A Write is atomic: all of its
// operations become visible together. There is no read-modify-write; callers that need one
// serialize it themselves (see LocalNodeService).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fs/base/status.h"

namespace leveldb {
class Env;
}

namespace bb::fs {

struct WriteBatch {
  struct Op {
    bool is_delete = false;
    std::string key;
    std::string value;
  };
  std::vector<Op> ops;

  void Put(std::string key, std::string value) { ops.push_back({false, std::move(key), std::move(value)}); }
  void Delete(std::string key) { ops.push_back({true, std::move(key), {}}); }
};

using KeyValue = std::pair<std::string, std::string>;

class MetaStore {
 public:
  virtual ~MetaStore() = default;

  // The value of `key`; ENOENT when absent; EIO when the store fails.
  virtual Result<std::string> Get(std::string_view key) = 0;

  // Applies `batch` atomically. With `sync`, returns only once the batch (and everything written
  // before it) is on stable storage. ENOSPC when the backing store is full; EIO otherwise.
  virtual Status Write(const WriteBatch& batch, bool sync) = 0;

  // Up to `limit` pairs whose keys start with `prefix` and sort strictly after
  // prefix + `start_after` (all of them when start_after is empty), in key order.
  virtual Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after, size_t limit) = 0;

  // Makes everything written so far durable.
  virtual Status Sync() = 0;

  Status Put(std::string key, std::string value, bool sync = false) {
    WriteBatch b;
    b.Put(std::move(key), std::move(value));
    return Write(b, sync);
  }
  Status Delete(std::string key, bool sync = false) {
    WriteBatch b;
    b.Delete(std::move(key));
    return Write(b, sync);
  }
};

struct LevelDbOptions {
  // Size of `<dir>.spare`, a file made at open (when the disk has room for it twice over) and given
  // back when the disk is full, so that the database can start a fresh log after a failed write
  // (see leveldb_meta_store.cc). At least 9 MiB when set; 0: no spare file.
  uint64_t spare_bytes = 0;
  // Told when the database reopens after a failed write, reads a damaged log, or gives back its spare.
  std::function<void(const std::string&)> warn;
  leveldb::Env* env = nullptr;  // LevelDB's file access; null: the default (tests inject faults)
};

// Opens (creating if needed) a LevelDB database in directory `dir`. EBUSY when another process
// holds it; EIO with LevelDB's message when it cannot be opened. A log damaged by a write cut short
// is read up to the damage (with a warning), not refused.
Result<std::unique_ptr<MetaStore>> OpenLevelDbMetaStore(const std::string& dir, LevelDbOptions options = {});

std::unique_ptr<MetaStore> NewMemoryMetaStore();

}  // namespace bb::fs
