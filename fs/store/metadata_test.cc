#include "fs/store/metadata.h"

#include <catch2/catch.hpp>

namespace bb::fs {
namespace {

TEST_CASE("metadata round-trips through its encoding", "[store]") {
  Metadata md;
  md.type = FileType::kSymlink;
  md.mode = 0777;
  md.uid = 1000;
  md.gid = 100;
  md.size = 1ULL << 40;
  md.atime_ns = 1;
  md.mtime_ns = -2;
  md.ctime_ns = 1'700'000'000'123'456'789;
  md.file_id = 0x0001000000000042ULL;
  md.chunk_size = 512 * 1024;
  md.data_location = 3;
  md.symlink_target = "../target";
  std::string bytes = EncodeMetadata(md);
  CHECK(bytes[0] == kMetadataVersion);
  auto back = DecodeMetadata(bytes);
  REQUIRE(back.has_value());
  CHECK(*back == md);
}

TEST_CASE("metadata decoding rejects damaged values", "[store]") {
  Metadata md;
  md.symlink_target = "abc";
  std::string good = EncodeMetadata(md);
  CHECK(DecodeMetadata("").error().code() == EIO);
  CHECK(DecodeMetadata(good.substr(0, good.size() - 1)).error().message().find("truncated") != std::string::npos);
  CHECK(DecodeMetadata(good + "x").error().message().find("trailing") != std::string::npos);
  std::string bad_version = good;
  bad_version[0] = 9;
  CHECK(DecodeMetadata(bad_version).error().message().find("version 9") != std::string::npos);
  std::string bad_type = good;
  bad_type[1] = 9;
  CHECK_FALSE(DecodeMetadata(bad_type).has_value());
}

TEST_CASE("extended attributes round-trip in version 6, and an entry without them stays version 5", "[store]") {
  Metadata md;
  md.file_id = 7;
  md.symlink_target = "t";
  CHECK(EncodeMetadata(md)[0] == kMetadataVersion);
  md.xattrs = {{"user.a", "1"},
               {"user.b", std::string("\0x\0", 3)},
               {"user.empty", ""},
               {std::string(kMaxXattrName, 'n'), std::string(1000, 'v')}};
  std::string bytes = EncodeMetadata(md);
  CHECK(bytes[0] == kMetadataVersionXattrs);
  auto back = DecodeMetadata(bytes);
  REQUIRE(back.has_value());
  CHECK(*back == md);
  CHECK(XattrBytes(md.xattrs) == 6 + 1 + 6 + 3 + 10 + kMaxXattrName + 1000);

  // Damaged: truncated, trailing bytes, no attributes, names out of order or empty.
  CHECK(DecodeMetadata(bytes.substr(0, bytes.size() - 1)).error().code() == EIO);
  CHECK(DecodeMetadata(bytes + "x").error().code() == EIO);
  Metadata plain;
  std::string none = EncodeMetadata(plain);
  none[0] = static_cast<char>(kMetadataVersionXattrs);
  none += std::string("\0\0", 2);  // a count of 0
  CHECK(DecodeMetadata(none).error().message().find("no extended attributes") != std::string::npos);
  Metadata two;
  two.xattrs = {{"user.a", "1"}, {"user.b", "2"}};
  std::string swapped = EncodeMetadata(two);
  size_t a = swapped.find("user.a"), b = swapped.find("user.b");
  REQUIRE(a != std::string::npos);
  swapped[a + 5] = 'b';
  swapped[b + 5] = 'a';
  CHECK(DecodeMetadata(swapped).error().message().find("out of order") != std::string::npos);
  Metadata big;
  big.xattrs = {{"user.a", std::string(kMaxXattrValue + 1, 'v')}};
  CHECK(DecodeMetadata(EncodeMetadata(big)).error().message().find("past 64 KiB") != std::string::npos);
  big.xattrs = {{"user.a", std::string(kMaxXattrValue, 'v')}, {"user.b", std::string(kMaxXattrValue, 'v')}};
  CHECK(DecodeMetadata(EncodeMetadata(big)).error().message().find("128 KiB") != std::string::npos);
}

TEST_CASE("version 1 values are still read, every type round-trips with its mode bits", "[store]") {
  // A version-1 value as an earlier build wrote it: a regular file, no rdev field.
  Metadata md;
  md.file_id = 7;
  md.size = 42;
  std::string current = EncodeMetadata(md);
  std::string v1 = current;
  v1[0] = 1;
  v1.erase(v1.size() - 2 - 25, 25);  // drop rdev, subdirs, link fields and alloc_end (before the target length)
  auto old = DecodeMetadata(v1);
  REQUIRE(old.has_value());
  CHECK(*old == md);
  // A version-2 value: rdev, no subdirectory count.
  Metadata dir;
  dir.type = FileType::kDirectory;
  dir.subdirs = 3;
  std::string v2_dir = EncodeMetadata(dir);
  v2_dir[0] = 2;
  v2_dir.erase(v2_dir.size() - 2 - 17, 17);
  auto older = DecodeMetadata(v2_dir);
  REQUIRE(older.has_value());
  CHECK(older->subdirs == 0);
  CHECK(DecodeMetadata(EncodeMetadata(dir))->subdirs == 3);
  // A version-3 value: no link fields; an unknown link role is refused.
  Metadata rec;
  rec.link = LinkRole::kRecord;
  rec.nlink = 3;
  std::string v5 = EncodeMetadata(rec);
  CHECK(*DecodeMetadata(v5) == rec);
  std::string v4 = v5;
  v4[0] = 4;
  v4.erase(v4.size() - 2 - 8, 8);
  CHECK(*DecodeMetadata(v4) == rec);
  std::string v3 = v4;
  v3[0] = 3;
  v3.erase(v3.size() - 2 - 5, 5);
  auto v3_back = DecodeMetadata(v3);
  REQUIRE(v3_back.has_value());
  CHECK(v3_back->link == LinkRole::kNone);
  CHECK(v3_back->nlink == 0);
  // A version-4 value: no alloc_end (read as none); version 5 keeps it.
  Metadata reserved;
  reserved.alloc_end = 5 << 20;
  std::string v5_alloc = EncodeMetadata(reserved);
  CHECK(DecodeMetadata(v5_alloc)->alloc_end == 5 << 20);
  CHECK(DataExtent(reserved) == 5 << 20);
  v5_alloc[0] = 4;
  v5_alloc.erase(v5_alloc.size() - 2 - 8, 8);
  CHECK(DecodeMetadata(v5_alloc)->alloc_end == 0);
  std::string bad_role = v4;
  bad_role[bad_role.size() - 2 - 5] = 7;
  CHECK(DecodeMetadata(bad_role).error().message().find("link role 7") != std::string::npos);
  std::string v1_fifo = v1;
  v1_fifo[1] = static_cast<char>(FileType::kFifo);  // version 1 knew three types only
  CHECK_FALSE(DecodeMetadata(v1_fifo).has_value());
  for (uint8_t t = 1; t <= kMaxFileType; ++t) {
    Metadata m;
    m.type = static_cast<FileType>(t);
    m.rdev = t == 6 || t == 7 ? 0x10305 : 0;
    auto back = DecodeMetadata(EncodeMetadata(m));
    REQUIRE(back.has_value());
    CHECK(*back == m);
    CHECK(FileTypeOf(FileTypeBits(m.type) | 0644) == m.type);
  }
  CHECK_FALSE(FileTypeOf(0644).has_value());
}

TEST_CASE("dentry keys group direct children under one prefix", "[store]") {
  struct Row {
    const char* path;
    const char* dir;
    bool child;
  };
  const Row rows[] = {
      {"/a", "/", true},    {"/a/b", "/", false},    {"/a/b", "/a", true},
      {"/ab", "/a", false}, {"/a/b/c", "/a", false}, {"/a/b/c", "/a/b", true},
  };
  for (const Row& r : rows) {
    INFO(r.path << " under " << r.dir);
    std::string key = DentryKey(r.path);
    std::string prefix = ChildKeyPrefix(r.dir);
    bool under = key.compare(0, prefix.size(), prefix) == 0;
    CHECK(under == r.child);
    if (under) {
      std::string p(r.path);
      CHECK(ChildName(key, prefix) == p.substr(p.rfind('/') + 1));
    }
  }
}

TEST_CASE("link records sit below their workspace's root where no listing shows them", "[store]") {
  std::string in_ws = LinkRecordPath("/job", 42);
  CHECK(in_ws == std::string("/job/\0links/42", 14));
  CHECK(LinkRecordPath("/", 7) == std::string("/\0links/7", 9));
  // Neither the workspace's nor the root's listing reaches them (they are one level deeper).
  for (auto [dir, path] : {std::pair<std::string, std::string>{"/job", in_ws}, {"/", LinkRecordPath("/", 7)}}) {
    std::string prefix = ChildKeyPrefix(dir);
    CHECK(DentryKey(path).compare(0, prefix.size(), prefix) != 0);
  }
}

}  // namespace
}  // namespace bb::fs
