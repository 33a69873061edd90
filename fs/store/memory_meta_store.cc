#include <map>
#include <mutex>

#include "fs/store/meta_store.h"

namespace bb::fs {
namespace {

class MemoryMetaStore final : public MetaStore {
 public:
  Result<std::string> Get(std::string_view key) override {
    std::lock_guard lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) return Status(ENOENT, "no such key");
    return it->second;
  }

  Status Write(const WriteBatch& batch, bool /*sync*/) override {
    std::lock_guard lock(mu_);
    for (const auto& op : batch.ops) {
      if (op.is_delete) {
        map_.erase(op.key);
      } else {
        map_.insert_or_assign(op.key, op.value);
      }
    }
    return Status::Ok();
  }

  Result<std::vector<KeyValue>> Scan(std::string_view prefix, std::string_view start_after, size_t limit) override {
    std::lock_guard lock(mu_);
    std::vector<KeyValue> out;
    std::string start(prefix);
    start.append(start_after);
    auto it = start_after.empty() ? map_.lower_bound(start) : map_.upper_bound(start);
    for (; it != map_.end() && out.size() < limit; ++it) {
      if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
      out.emplace_back(it->first, it->second);
    }
    return out;
  }

  Status Sync() override { return Status::Ok(); }

 private:
  std::mutex mu_;  // guards map_
  std::map<std::string, std::string, std::less<>> map_;
};

}  // namespace

std::unique_ptr<MetaStore> NewMemoryMetaStore() { return std::make_unique<MemoryMetaStore>(); }

}  // namespace bb::fs
