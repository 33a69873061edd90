// One contract, run against every MetaStore implementation.
#include "fs/store/meta_store.h"

#include <leveldb/env.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <climits>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "fs/base/temp_dir.h"

namespace bb::fs {
namespace {

void RunContract(MetaStore& s) {
  SECTION("get of a missing key is ENOENT") {
    auto r = s.Get("nope");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ENOENT);
  }
  SECTION("put, get, overwrite, delete") {
    REQUIRE(s.Put("k", "v1").ok());
    CHECK(*s.Get("k") == "v1");
    REQUIRE(s.Put("k", "v2").ok());
    CHECK(*s.Get("k") == "v2");
    REQUIRE(s.Delete("k").ok());
    CHECK(s.Get("k").error().code() == ENOENT);
  }
  SECTION("binary keys and values") {
    std::string key("a\0b", 3), value("\0\xff\x01", 3);
    REQUIRE(s.Put(key, value).ok());
    CHECK(*s.Get(key) == value);
    CHECK(s.Get("a").error().code() == ENOENT);
  }
  SECTION("batches apply all operations") {
    REQUIRE(s.Put("x", "1").ok());
    WriteBatch b;
    b.Delete("x");
    b.Put("y", "2");
    b.Put("z", "3");
    REQUIRE(s.Write(b, true).ok());
    CHECK(s.Get("x").error().code() == ENOENT);
    CHECK(*s.Get("y") == "2");
    CHECK(*s.Get("z") == "3");
  }
  SECTION("scan stays inside the prefix, in order, paged by start_after") {
    for (const char* k : {"p/c", "p/a", "p/b", "q/a", "o/z", "p"}) REQUIRE(s.Put(k, k).ok());
    auto all = s.Scan("p/", "", 100);
    REQUIRE(all.has_value());
    REQUIRE(all->size() == 3);
    CHECK((*all)[0].first == "p/a");
    CHECK((*all)[1].first == "p/b");
    CHECK((*all)[2].first == "p/c");
    auto page1 = s.Scan("p/", "", 2);
    REQUIRE(page1->size() == 2);
    auto page2 = s.Scan("p/", "b", 2);
    REQUIRE(page2->size() == 1);
    CHECK((*page2)[0].first == "p/c");
    CHECK(s.Scan("p/", "c", 2)->empty());
    CHECK(s.Scan("none/", "", 10)->empty());
  }
  SECTION("sync succeeds") { CHECK(s.Sync().ok()); }
}

TEST_CASE("MetaStore contract: memory", "[store]") {
  auto s = NewMemoryMetaStore();
  RunContract(*s);
}

TEST_CASE("MetaStore contract: LevelDB", "[store]") {
  TempDir dir("bb-meta");
  auto s = OpenLevelDbMetaStore(dir.path + "/db");
  REQUIRE(s.has_value());
  RunContract(**s);
}

TEST_CASE("LevelDB store keeps data across reopen and refuses a second opener", "[store]") {
  TempDir dir("bb-meta");
  {
    auto s = OpenLevelDbMetaStore(dir.path + "/db");
    REQUIRE(s.has_value());
    REQUIRE((*s)->Put("kept", "yes", true).ok());
    auto second = OpenLevelDbMetaStore(dir.path + "/db");
    REQUIRE_FALSE(second.has_value());
    CHECK(second.error().code() == EBUSY);
  }
  auto s = OpenLevelDbMetaStore(dir.path + "/db");
  REQUIRE(s.has_value());
  CHECK(*(*s)->Get("kept") == "yes");
}

// LevelDB's files through an Env whose disk fills when told: a write past the room left is cut
// short, its first bytes written as write(2) does on a full disk, and fails with ENOSPC.
class FillingEnv : public leveldb::EnvWrapper {
 public:
  FillingEnv() : EnvWrapper(leveldb::Env::Default()) {}
  std::atomic<int64_t> room{INT64_MAX};

  leveldb::Status NewWritableFile(const std::string& f, leveldb::WritableFile** r) override {
    return Wrap(target()->NewWritableFile(f, r), f, r);
  }
  leveldb::Status NewAppendableFile(const std::string& f, leveldb::WritableFile** r) override {
    return Wrap(target()->NewAppendableFile(f, r), f, r);
  }

 private:
  class File final : public leveldb::WritableFile {
   public:
    File(leveldb::WritableFile* file, std::string name, std::atomic<int64_t>* room)
        : file_(file), name_(std::move(name)), room_(room) {}
    leveldb::Status Append(const leveldb::Slice& data) override {
      int64_t size = static_cast<int64_t>(data.size());
      int64_t left = room_->fetch_sub(size);
      if (left >= size) return file_->Append(data);
      room_->store(0);
      if (left > 0) {
        (void)file_->Append(leveldb::Slice(data.data(), static_cast<size_t>(left)));
        (void)file_->Flush();
      }
      return leveldb::Status::IOError(name_, "No space left on device");
    }
    leveldb::Status Close() override { return file_->Close(); }
    leveldb::Status Flush() override { return file_->Flush(); }
    leveldb::Status Sync() override { return file_->Sync(); }

   private:
    std::unique_ptr<leveldb::WritableFile> file_;
    std::string name_;
    std::atomic<int64_t>* room_;
  };

  leveldb::Status Wrap(leveldb::Status s, const std::string& name, leveldb::WritableFile** r) {
    if (s.ok()) *r = new File(*r, name, &room);
    return s;
  }
};

TEST_CASE("LevelDB store: writes cut short by a full disk lose nothing acknowledged before or after them", "[store]") {
  TempDir dir("bb-meta");
  FillingEnv env;
  std::vector<std::string> warnings;
  std::set<std::string> acknowledged, refused;
  {
    LevelDbOptions options;
    options.env = &env;
    options.warn = [&](const std::string& text) { warnings.push_back(text); };
    auto s = OpenLevelDbMetaStore(dir.path + "/db", std::move(options));
    REQUIRE(s.has_value());
    auto put = [&](const std::string& key) {
      Status st = (*s)->Put(key, std::string(100, 'v'));
      (st.ok() ? acknowledged : refused).insert(key);
      return st;
    };
    for (int i = 0; i < 200; ++i) REQUIRE(put("before-" + std::to_string(i)).ok());
    env.room = 1000;  // a few records fit, one is torn, the rest are refused
    int enospc = 0;
    for (int i = 0; i < 50; ++i) enospc += put("full-" + std::to_string(i)).code() == ENOSPC;
    CHECK(enospc > 0);
    CHECK(refused.size() == static_cast<size_t>(enospc));
    // Its reopen found no room either (the disk says there is, the Env none): closed for now.
    CHECK_FALSE((*s)->Get("before-0").has_value());
    env.room = INT64_MAX;  // room again: reads come back without a write to reopen it
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!(*s)->Get("before-0").has_value() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE((*s)->Get("before-0").has_value());
    while (!put("after-0").ok() && std::chrono::steady_clock::now() < deadline) {
      refused.erase("after-0");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    REQUIRE(acknowledged.count("after-0") == 1);
    for (int i = 1; i < 200; ++i) REQUIRE(put("after-" + std::to_string(i)).ok());
    CHECK(*(*s)->Get("before-0") == std::string(100, 'v'));  // reads never stopped
  }
  CHECK_FALSE(warnings.empty());
  auto s = OpenLevelDbMetaStore(dir.path + "/db");  // as a restarted daemon opens it
  REQUIRE(s.has_value());
  for (const auto& key : acknowledged) CHECK((*s)->Get(key).has_value());
  for (const auto& key : refused) CHECK((*s)->Get(key).error().code() == ENOENT);
}

TEST_CASE("LevelDB store: a log damaged in its middle is read up to the damage, not refused", "[store]") {
  TempDir dir("bb-meta");
  {
    auto s = OpenLevelDbMetaStore(dir.path + "/db");
    REQUIRE(s.has_value());
    for (int i = 0; i < 400; ++i) REQUIRE((*s)->Put("k" + std::to_string(i), std::string(100, 'v')).ok());
  }
  std::string log;
  for (const auto& e : std::filesystem::directory_iterator(dir.path + "/db")) {
    if (e.path().extension() == ".log" && e.file_size() > 0) log = e.path();
  }
  REQUIRE_FALSE(log.empty());
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(log) / 2));
    f.write("damage", 6);
  }
  std::vector<std::string> warnings;
  LevelDbOptions options;
  options.warn = [&](const std::string& text) { warnings.push_back(text); };
  auto s = OpenLevelDbMetaStore(dir.path + "/db", std::move(options));
  REQUIRE(s.has_value());
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("reading it up to the damage"));
  CHECK((*s)->Get("k0").has_value());
  REQUIRE((*s)->Put("new", "yes", true).ok());
  s->reset();
  auto again = OpenLevelDbMetaStore(dir.path + "/db");
  REQUIRE(again.has_value());
  CHECK(*(*again)->Get("new") == "yes");
}

}  // namespace
}  // namespace bb::fs
