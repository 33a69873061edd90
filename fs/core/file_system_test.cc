// The core driven without FUSE, on the in-memory stores and on the real ones (LevelDB + chunk
// files). Every case runs against both.
#include "fs/core/file_system.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "fs/base/temp_dir.h"
#include "fs/core/placement/workspace.h"

namespace bb::fs {
namespace {

constexpr uint32_t kChunk = 4096;

// One node's stores plus a FileSystem over them.
class Node {
 public:
  explicit Node(bool real, std::string dir = "") : dir_(std::move(dir)) {
    if (real) {
      meta_ = std::move(*OpenLevelDbMetaStore(dir_ + "/meta"));
      chunks_ = std::move(*OpenPosixChunkStore(dir_, 0));
    } else {
      meta_ = NewMemoryMetaStore();
      chunks_ = NewMemoryChunkStore();
    }
    local_ = NewLocalNodeService(meta_.get(), chunks_.get(), {dir_, 0});
    ids_ = std::make_unique<FileIdAllocator>(meta_.get(), 0);
    FileSystemOptions o;
    o.chunk_size = kChunk;
    o.dir_page = 7;  // small pages so listings cross many page borders
    fs_ = std::make_unique<FileSystem>(
        o, &router_, [this](NodeId) { return local_.get(); }, ids_.get(), &clock_);
    REQUIRE(fs_->Init(owner_).ok());
  }
  FileSystem& fs() { return *fs_; }
  ManualClock& clock() { return clock_; }
  const Caller& owner() const { return owner_; }

 private:
  std::string dir_;
  Caller owner_{1000, 1000, 1};
  WorkspaceRouter router_{WorkspaceSpec{{}, kChunk}, NodeView{1, 0}};  // one node: every target is local
  ManualClock clock_;
  std::unique_ptr<MetaStore> meta_;
  std::unique_ptr<ChunkStore> chunks_;
  std::unique_ptr<NodeService> local_;
  std::unique_ptr<FileIdAllocator> ids_;
  std::unique_ptr<FileSystem> fs_;
};

std::string ReadString(FileSystem& fs, OpenFile* f, uint64_t off, size_t n) {
  std::string buf(n, 'X');
  auto got = fs.Read(f, off, {buf.data(), n});
  REQUIRE(got.has_value());
  buf.resize(*got);
  return buf;
}

void WriteString(FileSystem& fs, OpenFile* f, uint64_t off, const std::string& s) {
  auto n = fs.Write(f, off, {s.data(), s.size()});
  REQUIRE(n.has_value());
  REQUIRE(*n == s.size());
}

std::vector<std::string> List(FileSystem& fs, uint64_t ino) {
  auto d = fs.OpenDir(ino);
  REQUIRE(d.has_value());
  std::vector<std::string> names;
  for (uint64_t i = 0;; ++i) {
    auto e = fs.DirEntryAt(*d, i);
    REQUIRE(e.has_value());
    if (!e->has_value()) break;
    names.push_back((*e)->name);
  }
  fs.ReleaseDir(*d);
  return names;
}

void RunCoreCases(Node& n) {
  FileSystem& fs = n.fs();
  const Caller& c = n.owner();

  SECTION("create, write across chunks, read back, sizes and holes") {
    auto cr = fs.Create(1, "f", 0640, O_RDWR, c);
    REQUIRE(cr.has_value());
    auto [entry, f] = *cr;
    CHECK(entry.md.type == FileType::kRegular);
    CHECK(entry.md.mode == 0640);
    CHECK(entry.md.uid == 1000);
    std::string data(3 * kChunk + 100, '\0');
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
    WriteString(fs, f, 10, data);
    CHECK(fs.GetAttr(entry.ino)->md.size == 10 + data.size());
    CHECK(ReadString(fs, f, 0, 10) == std::string(10, '\0'));  // leading hole
    CHECK(ReadString(fs, f, 10, data.size()) == data);
    CHECK(ReadString(fs, f, kChunk - 5, 10) == data.substr(kChunk - 15, 10));
    CHECK(ReadString(fs, f, 10 + data.size(), 10).empty());  // at EOF
    // sparse: write far beyond, the gap reads as zeros
    WriteString(fs, f, 100 * kChunk, "tail");
    CHECK(ReadString(fs, f, 50 * kChunk, 8) == std::string(8, '\0'));
    CHECK(ReadString(fs, f, 100 * kChunk, 10) == "tail");
    REQUIRE(fs.Release(f).ok());
    CHECK(fs.GetAttr(entry.ino)->md.size == 100 * kChunk + 4);
  }

  SECTION("sizes are published on flush, not on every write") {
    auto [e, f] = *fs.Create(1, "lazy", 0644, O_RDWR, c);
    WriteString(fs, f, 0, "abc");
    // a fresh lookup merges the unpublished size of this node's open file
    CHECK(fs.Lookup(1, "lazy")->md.size == 3);
    REQUIRE(fs.Flush(f).ok());
    CHECK(fs.GetAttr(e.ino)->md.size == 3);
    REQUIRE(fs.Release(f).ok());
  }

  SECTION("truncate shrinks and grows; O_TRUNC empties") {
    auto [e, f] = *fs.Create(1, "t", 0644, O_RDWR, c);
    WriteString(fs, f, 0, std::string(2 * kChunk + 10, 'x'));
    SetAttrRequest shrink;
    shrink.size = kChunk + 1;
    CHECK(fs.SetAttr(e.ino, shrink, f)->md.size == kChunk + 1);
    CHECK(ReadString(fs, f, kChunk, 10) == "x");
    SetAttrRequest grow;
    grow.size = 3 * kChunk;
    CHECK(fs.SetAttr(e.ino, grow, f)->md.size == 3 * kChunk);
    CHECK(ReadString(fs, f, kChunk, 4) == std::string("x\0\0\0", 4));
    REQUIRE(fs.Release(f).ok());
    auto g = fs.Open(e.ino, O_RDWR | O_TRUNC, n.owner());
    REQUIRE(g.has_value());
    CHECK(fs.GetAttr(e.ino)->md.size == 0);
    CHECK(ReadString(fs, *g, 0, 10).empty());
    REQUIRE(fs.Release(*g).ok());
  }

  SECTION("O_APPEND writes at the end whatever the offset") {
    auto [e, f] = *fs.Create(1, "log", 0644, O_WRONLY | O_APPEND, c);
    WriteString(fs, f, 0, "one,");
    WriteString(fs, f, 0, "two");
    REQUIRE(fs.Release(f).ok());
    auto g = *fs.Open(e.ino, O_RDONLY, n.owner());
    CHECK(ReadString(fs, g, 0, 100) == "one,two");
    REQUIRE(fs.Release(g).ok());
  }

  SECTION("O_EXCL, EEXIST, EISDIR, ENOTDIR, ENOENT, ENAMETOOLONG") {
    auto first = fs.Create(1, "x", 0644, O_RDWR | O_CREAT | O_EXCL, c);
    REQUIRE(first.has_value());
    REQUIRE(fs.Release(first->second).ok());
    auto again = fs.Create(1, "x", 0644, O_RDWR | O_CREAT | O_EXCL, c);
    CHECK(again.error().code() == EEXIST);
    auto d = fs.Mkdir(1, "d", 0755, c);
    REQUIRE(d.has_value());
    CHECK(fs.Mkdir(1, "d", 0755, c).error().code() == EEXIST);
    CHECK(fs.Open(d->ino, O_RDONLY, n.owner()).error().code() == EISDIR);
    CHECK(fs.Unlink(1, "d").code() == EISDIR);
    CHECK(fs.Rmdir(1, "x").code() == ENOTDIR);
    CHECK(fs.Lookup(1, "missing").error().code() == ENOENT);
    CHECK(fs.Unlink(1, "missing").code() == ENOENT);
    CHECK(fs.Lookup(1, std::string(256, 'n')).error().code() == ENAMETOOLONG);
    CHECK(fs.Mkdir(1, std::string(256, 'n'), 0755, c).error().code() == ENAMETOOLONG);
  }

  SECTION("rmdir refuses non-empty directories") {
    auto d = *fs.Mkdir(1, "d", 0755, c);
    auto [e, f] = *fs.Create(d.ino, "inner", 0644, O_RDWR, c);
    REQUIRE(fs.Release(f).ok());
    CHECK(fs.Rmdir(1, "d").code() == ENOTEMPTY);
    REQUIRE(fs.Unlink(d.ino, "inner").ok());
    CHECK(fs.Rmdir(1, "d").ok());
    CHECK(fs.Lookup(1, "d").error().code() == ENOENT);
  }

  SECTION("an unlinked open file keeps working until the last close") {
    auto [e, f] = *fs.Create(1, "ghost", 0644, O_RDWR, c);
    WriteString(fs, f, 0, "still here");
    CHECK_FALSE(fs.GetAttr(e.ino)->unlinked);
    REQUIRE(fs.Unlink(1, "ghost").ok());
    CHECK(fs.GetAttr(e.ino)->unlinked);  // st_nlink 0
    CHECK(fs.Lookup(1, "ghost").error().code() == ENOENT);
    CHECK(ReadString(fs, f, 0, 100) == "still here");
    WriteString(fs, f, 10, "!");
    CHECK(fs.GetAttr(e.ino)->md.size == 11);
    REQUIRE(fs.Release(f).ok());
    fs.Forget(e.ino, 1);
    CHECK(fs.GetAttr(e.ino).error().code() == ESTALE);
  }

  SECTION("rename moves metadata, keeps the inode and replaces a target") {
    auto [a, fa] = *fs.Create(1, "a", 0644, O_RDWR, c);
    WriteString(fs, fa, 0, "AAA");
    REQUIRE(fs.Release(fa).ok());
    auto [b, fb] = *fs.Create(1, "b", 0644, O_RDWR, c);
    WriteString(fs, fb, 0, "BBBBBB");
    REQUIRE(fs.Release(fb).ok());
    CHECK(fs.Rename(1, "a", 1, "b", RENAME_NOREPLACE).code() == EEXIST);
    n.clock().Advance(1'000'000'000);
    REQUIRE(fs.Rename(1, "a", 1, "b", 0).ok());
    CHECK(fs.Lookup(1, "a").error().code() == ENOENT);
    auto nb = fs.Lookup(1, "b");
    REQUIRE(nb.has_value());
    CHECK(nb->ino == a.ino);
    CHECK(nb->md.ctime_ns == n.clock().WallNs());  // a rename changes the file's change time
    auto g = *fs.Open(nb->ino, O_RDONLY, n.owner());
    CHECK(ReadString(fs, g, 0, 10) == "AAA");
    REQUIRE(fs.Release(g).ok());
    // directories: empty ones move, and so do ones holding entries; into itself EINVAL
    auto d = *fs.Mkdir(1, "d", 0755, c);
    REQUIRE(fs.Rename(1, "d", 1, "d2", 0).ok());
    CHECK(fs.Lookup(1, "d2")->ino == d.ino);
    auto [x, fx] = *fs.Create(d.ino, "x", 0644, O_RDWR, c);
    WriteString(fs, fx, 0, "XX");
    REQUIRE(fs.Release(fx).ok());
    REQUIRE(fs.Rename(1, "d2", 1, "d3", 0).ok());
    CHECK(fs.Lookup(1, "d2").error().code() == ENOENT);
    CHECK(fs.Lookup(1, "d3")->ino == d.ino);
    auto moved = fs.Lookup(d.ino, "x");
    REQUIRE(moved.has_value());
    CHECK(moved->ino == x.ino);
    auto gx = *fs.Open(x.ino, O_RDONLY, n.owner());
    CHECK(ReadString(fs, gx, 0, 10) == "XX");
    REQUIRE(fs.Release(gx).ok());
    REQUIRE(fs.Rename(1, "d3", 1, "d2", 0).ok());
    CHECK(fs.Rename(1, "d2", d.ino, "sub", 0).code() == EINVAL);
    CHECK(fs.Rename(1, "b", 1, "d2", 0).code() == EISDIR);
    auto e = *fs.Mkdir(1, "empty", 0755, c);
    CHECK(fs.Rename(1, "empty", 1, "b", 0).code() == ENOTDIR);
    CHECK(fs.Rename(1, "empty", 1, "d2", 0).code() == ENOTEMPTY);
    // the errors of the target, for a source that holds entries too
    auto full = *fs.Mkdir(1, "full", 0755, c);
    REQUIRE(fs.Mkdir(full.ino, "y", 0755, c).has_value());
    CHECK(fs.Rename(1, "d2", 1, "full", 0).code() == ENOTEMPTY);
    CHECK(fs.Rename(1, "d2", 1, "b", 0).code() == ENOTDIR);
    CHECK(fs.Rename(1, "d2", 1, "empty", RENAME_NOREPLACE).code() == EEXIST);
    (void)e;
  }

  SECTION("readdir pages through large directories, sorted, with . and ..") {
    auto d = *fs.Mkdir(1, "big", 0755, c);
    std::set<std::string> want;
    for (int i = 0; i < 500; ++i) {
      std::string name = "f" + std::to_string(i);
      auto m = fs.Mknod(d.ino, name, S_IFREG | 0644, 0, c);
      REQUIRE(m.has_value());
      want.insert(name);
    }
    REQUIRE(fs.Mkdir(d.ino, "sub", 0755, c).has_value());
    REQUIRE(fs.Mknod(*&d.ino, "sub2", S_IFREG | 0644, 0, c).has_value());
    want.insert("sub");
    want.insert("sub2");
    auto names = List(fs, d.ino);
    REQUIRE(names.size() == want.size() + 2);
    CHECK(names[0] == ".");
    CHECK(names[1] == "..");
    std::vector<std::string> rest(names.begin() + 2, names.end());
    CHECK(std::is_sorted(rest.begin(), rest.end()));
    CHECK(std::set<std::string>(rest.begin(), rest.end()) == want);
    // grandchildren never show up in the parent
    auto sub = *fs.Lookup(d.ino, "sub");
    REQUIRE(fs.Mknod(sub.ino, "deep", S_IFREG | 0644, 0, c).has_value());
    CHECK(List(fs, d.ino).size() == names.size());
    CHECK(List(fs, sub.ino).size() == 3);
  }

  SECTION("symlinks, chmod/chown/utimens, mknod of non-regular files") {
    auto s = fs.Symlink(1, "link", "target/path", c);
    REQUIRE(s.has_value());
    CHECK(s->md.type == FileType::kSymlink);
    CHECK(*fs.Readlink(s->ino) == "target/path");
    auto [e, f] = *fs.Create(1, "m", 0644, O_RDWR, c);
    CHECK(fs.Readlink(e.ino).error().code() == EINVAL);
    SetAttrRequest r;
    r.mode = 0600;
    r.uid = 7;
    r.gid = 8;
    r.mtime_ns = 1234;
    r.atime_ns = 5678;
    auto after = fs.SetAttr(e.ino, r, nullptr);
    REQUIRE(after.has_value());
    CHECK(after->md.mode == 0600);
    CHECK(after->md.uid == 7);
    CHECK(after->md.gid == 8);
    CHECK(after->md.mtime_ns == 1234);
    CHECK(after->md.atime_ns == 5678);
    CHECK(after->md.ctime_ns == n.clock().WallNs());
    REQUIRE(fs.Release(f).ok());
  }

  SECTION("FIFOs and sockets are made by anyone, devices only by root, with their numbers") {
    auto fifo = fs.Mknod(1, "fifo", S_IFIFO | 0640, 0, c);
    REQUIRE(fifo.has_value());
    CHECK(fifo->md.type == FileType::kFifo);
    CHECK(fifo->md.mode == 0640);
    CHECK(fs.Lookup(1, "fifo")->md.type == FileType::kFifo);
    auto sock = fs.Mknod(1, "sock", S_IFSOCK | 0600, 0, c);
    REQUIRE(sock.has_value());
    CHECK(sock->md.type == FileType::kSocket);
    CHECK(fs.Mknod(1, "tty", S_IFCHR | 0600, makedev(4, 1), c).error().code() == EPERM);
    CHECK(fs.Lookup(1, "tty").error().code() == ENOENT);
    Caller root{0, 0, 1};
    auto chr = fs.Mknod(1, "tty", S_IFCHR | 0600, makedev(4, 1), root);
    REQUIRE(chr.has_value());
    CHECK(chr->md.type == FileType::kCharDevice);
    CHECK(fs.Lookup(1, "tty")->md.rdev == makedev(4, 1));
    auto blk = fs.Mknod(1, "disk", S_IFBLK | 0600, makedev(8, 0), root);
    REQUIRE(blk.has_value());
    CHECK(blk->md.type == FileType::kBlockDevice);
    CHECK(fs.Mknod(1, "dir", S_IFDIR | 0755, 0, c).error().code() == EINVAL);
    CHECK(fs.Mknod(1, "link", S_IFLNK | 0777, 0, c).error().code() == EINVAL);
    auto dir = *fs.OpenDir(1);
    std::map<std::string, FileType> types;
    for (uint64_t i = 0;; ++i) {
      auto e = fs.DirEntryAt(dir, i);
      REQUIRE(e.has_value());
      if (!*e) break;
      types[(*e)->name] = (*e)->type;
    }
    fs.ReleaseDir(dir);
    CHECK(types["fifo"] == FileType::kFifo);
    CHECK(types["sock"] == FileType::kSocket);
    CHECK(types["tty"] == FileType::kCharDevice);
    CHECK(types["disk"] == FileType::kBlockDevice);
  }

  SECTION("file ids are unique and are the inode numbers") {
    std::set<uint64_t> ids;
    for (int i = 0; i < 100; ++i) {
      auto m = fs.Mknod(1, "n" + std::to_string(i), S_IFREG | 0644, 0, c);
      REQUIRE(m.has_value());
      CHECK(m->ino == m->md.file_id);
      ids.insert(m->ino);
    }
    CHECK(ids.size() == 100);
    CHECK(ids.count(kRootFileId) == 0);
  }

  SECTION("forget drops inodes the kernel no longer holds") {
    size_t before = fs.KnownInodes();
    auto m = *fs.Mknod(1, "z", S_IFREG | 0644, 0, c);
    CHECK(fs.Lookup(1, "z").has_value());
    CHECK(fs.KnownInodes() == before + 1);
    fs.Forget(m.ino, 2);
    CHECK(fs.KnownInodes() == before);
  }
}

TEST_CASE("core operations on in-memory stores", "[core]") {
  Node n(false);
  RunCoreCases(n);
}

TEST_CASE("core operations on LevelDB and chunk files", "[core]") {
  TempDir dir("bb-core");
  Node n(true, dir.path);
  RunCoreCases(n);
}

TEST_CASE("the tree, data and attributes survive a restart of the core", "[core]") {
  TempDir dir("bb-core");
  uint64_t file_ino;
  {
    Node n(true, dir.path);
    auto d = *n.fs().Mkdir(1, "dir", 0750, n.owner());
    auto [e, f] = *n.fs().Create(d.ino, "file", 0604, O_RDWR, n.owner());
    WriteString(n.fs(), f, 5, "persist");
    REQUIRE(n.fs().Fsync(f).ok());
    REQUIRE(n.fs().Release(f).ok());
    file_ino = e.ino;
  }
  Node n(true, dir.path);
  auto d = n.fs().Lookup(1, "dir");
  REQUIRE(d.has_value());
  CHECK(d->md.mode == 0750);
  auto e = n.fs().Lookup(d->ino, "file");
  REQUIRE(e.has_value());
  CHECK(e->ino == file_ino);
  CHECK(e->md.size == 12);
  CHECK(e->md.mode == 0604);
  CHECK(e->md.uid == 1000);
  auto f = *n.fs().Open(e->ino, O_RDONLY, n.owner());
  CHECK(ReadString(n.fs(), f, 0, 20) == std::string("\0\0\0\0\0persist", 12));
  REQUIRE(n.fs().Release(f).ok());
  // ids handed out after the restart never repeat earlier ones
  auto m = n.fs().Mknod(1, "after", S_IFREG | 0644, 0, n.owner());
  REQUIRE(m.has_value());
  CHECK(m->ino != file_ino);
  CHECK(m->ino != d->ino);
}

}  // namespace
}  // namespace bb::fs
