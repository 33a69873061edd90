// Mounted tests: a real bbd, a real FUSE mount, real syscalls. Need root and /dev/fuse.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <random>
#include <set>

#include "fs/base/mounts.h"
#include "test/mount_fixture.h"

namespace bb::test {
namespace {

// errno of a call expected to fail, or 0 when it succeeded.
#define ERRNO_OF(call) ((call) < 0 ? errno : 0)

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  REQUIRE(::close(fd) == 0);
}

#define REQUIRE_MOUNTED(bb) \
  INFO((bb).error());       \
  REQUIRE((bb).running())

TEST_CASE("errno cases of names and types", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string f = bb.Path("f"), d = bb.Path("d");
  int fd = ::open(f.c_str(), O_CREAT | O_EXCL | O_RDWR, 0644);
  REQUIRE(fd >= 0);
  ::close(fd);
  CHECK(ERRNO_OF(::open(f.c_str(), O_CREAT | O_EXCL | O_RDWR, 0644)) == EEXIST);
  REQUIRE(::mkdir(d.c_str(), 0755) == 0);
  CHECK(ERRNO_OF(::mkdir(d.c_str(), 0755)) == EEXIST);
  CHECK(ERRNO_OF(::open(d.c_str(), O_WRONLY)) == EISDIR);
  CHECK(ERRNO_OF(::unlink(d.c_str())) == EISDIR);
  CHECK(ERRNO_OF(::rmdir(f.c_str())) == ENOTDIR);
  CHECK(ERRNO_OF(::mkdir((f + "/sub").c_str(), 0755)) == ENOTDIR);
  CHECK(ERRNO_OF(::open(bb.Path("missing").c_str(), O_RDONLY)) == ENOENT);
  CHECK(ERRNO_OF(::open(bb.Path("no/such").c_str(), O_CREAT | O_RDWR, 0644)) == ENOENT);
  std::string long_name = bb.Path(std::string(256, 'x'));
  CHECK(ERRNO_OF(::open(long_name.c_str(), O_CREAT | O_RDWR, 0644)) == ENAMETOOLONG);
  CHECK(ERRNO_OF(::mkdir(long_name.c_str(), 0755)) == ENAMETOOLONG);
  std::string max_name = bb.Path(std::string(255, 'y'));
  fd = ::open(max_name.c_str(), O_CREAT | O_RDWR, 0644);
  CHECK(fd >= 0);
  ::close(fd);
  REQUIRE(::close(::open((d + "/x").c_str(), O_CREAT | O_RDWR, 0644)) == 0);
  CHECK(ERRNO_OF(::rmdir(d.c_str())) == ENOTEMPTY);
  CHECK(ERRNO_OF(::link(d.c_str(), bb.Path("hard").c_str())) == EPERM);  // a directory
  CHECK(ERRNO_OF(::link(f.c_str(), d.c_str())) == EEXIST);
  CHECK(ERRNO_OF(::setxattr(f.c_str(), "user.a", "b", 1, 0)) == ENOTSUP);
  REQUIRE(::unlink((d + "/x").c_str()) == 0);
  CHECK(::rmdir(d.c_str()) == 0);
  CHECK(ERRNO_OF(::access(d.c_str(), F_OK)) == ENOENT);
}

TEST_CASE("a directory counts its subdirectories in st_nlink, and its times move with its entries", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string d = bb.Path("nl");
  REQUIRE(::mkdir(d.c_str(), 0755) == 0);
  struct stat st {};
  REQUIRE(::stat(d.c_str(), &st) == 0);
  CHECK(st.st_nlink == 2);
  timespec made = st.st_mtim;
  auto later = [](const timespec& a, const timespec& b) {
    return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
  };
  // Each kind of entry change, on its own: the count as POSIX says, mtime and ctime later.
  struct Step {
    const char* what;
    std::function<int()> run;
    nlink_t nlink;
  };
  const std::vector<Step> steps = {
      {"mkdir", [&] { return ::mkdir((d + "/a").c_str(), 0755); }, 3},
      {"mkdir", [&] { return ::mkdir((d + "/b").c_str(), 0755); }, 4},
      {"create", [&] { return ::close(::open((d + "/f").c_str(), O_CREAT | O_WRONLY, 0644)); }, 4},
      {"symlink", [&] { return ::symlink("f", (d + "/s").c_str()); }, 4},
      {"mkfifo", [&] { return ::mkfifo((d + "/p").c_str(), 0600); }, 4},
      {"rename within", [&] { return ::rename((d + "/f").c_str(), (d + "/g").c_str()); }, 4},
      {"unlink", [&] { return ::unlink((d + "/g").c_str()); }, 4},
      {"rmdir", [&] { return ::rmdir((d + "/b").c_str()); }, 3},
      {"rename a directory out", [&] { return ::rename((d + "/a").c_str(), bb.Path("nl_a").c_str()); }, 2},
  };
  timespec last = made;
  for (const Step& s : steps) {
    INFO(s.what);
    ::usleep(2000);  // times that differ even on a coarse clock
    REQUIRE(s.run() == 0);
    REQUIRE(::stat(d.c_str(), &st) == 0);
    CHECK(st.st_nlink == s.nlink);
    CHECK(later(st.st_mtim, last));
    CHECK(later(st.st_ctim, last));
    last = st.st_mtim;
  }
  REQUIRE(::stat(bb.Path("").c_str(), &st) == 0);
  CHECK(st.st_nlink >= 4);  // the mount's root: nl, nl_a and whatever other cases left
  // An open file that is unlinked reports no link left.
  int fd = ::open((d + "/open").c_str(), O_CREAT | O_RDWR, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::unlink((d + "/open").c_str()) == 0);
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_nlink == 0);
  ::close(fd);
}

TEST_CASE("hard links: one file under several names, counted through renames and unlinks", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string a = bb.Path("a"), b = bb.Path("b"), c = bb.Path("c");
  int fd = ::open(a.c_str(), O_CREAT | O_EXCL | O_RDWR, 0640);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "first", 5) == 5);
  REQUIRE(::link(a.c_str(), b.c_str()) == 0);
  // Written through the first name after the link, while open.
  REQUIRE(::pwrite(fd, "+more", 5, 5) == 5);
  ::close(fd);
  struct stat sa {
  }, sb{};
  REQUIRE(::stat(a.c_str(), &sa) == 0);
  REQUIRE(::stat(b.c_str(), &sb) == 0);
  CHECK(sa.st_ino == sb.st_ino);
  CHECK(sa.st_nlink == 2);
  CHECK(sb.st_nlink == 2);
  CHECK(sb.st_size == 10);
  CHECK(ReadFile(b) == "first+more");
  REQUIRE(::chmod(b.c_str(), 0600) == 0);
  REQUIRE(::stat(a.c_str(), &sa) == 0);
  CHECK((sa.st_mode & 07777) == 0600);
  REQUIRE(::link(b.c_str(), c.c_str()) == 0);
  REQUIRE(::stat(a.c_str(), &sa) == 0);
  CHECK(sa.st_nlink == 3);
  // A rename of one name over another of the same file does nothing; over a name of another
  // file, that file loses it.
  REQUIRE(::rename(a.c_str(), c.c_str()) == 0);
  CHECK(::access(a.c_str(), F_OK) == 0);
  std::string other = bb.Path("other");
  REQUIRE(::close(::open(other.c_str(), O_CREAT | O_RDWR, 0644)) == 0);
  REQUIRE(::rename(other.c_str(), c.c_str()) == 0);
  REQUIRE(::stat(a.c_str(), &sa) == 0);
  CHECK(sa.st_nlink == 2);
  // Truncate through one name; unlink the names one by one.
  REQUIRE(::truncate(a.c_str(), 3) == 0);
  REQUIRE(::unlink(a.c_str()) == 0);
  REQUIRE(::stat(b.c_str(), &sb) == 0);
  CHECK(sb.st_nlink == 1);
  CHECK(ReadFile(b) == "fir");
  fd = ::open(b.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::unlink(b.c_str()) == 0);
  REQUIRE(::fstat(fd, &sb) == 0);
  CHECK(sb.st_nlink == 0);
  char buf[8] = {};
  CHECK(::pread(fd, buf, sizeof buf, 0) == 3);
  ::close(fd);
  CHECK(ERRNO_OF(::access(b.c_str(), F_OK)) == ENOENT);
  REQUIRE(::unlink(c.c_str()) == 0);
}

TEST_CASE("FIFOs, sockets and device nodes: made, listed, used, devices inert (nodev)", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string fifo = bb.Path("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK((st.st_mode & 07777) == 0600);
  // the kernel runs the pipe itself: what goes in comes out
  int fd = ::open(fifo.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "ping", 4) == 4);
  char buf[8] = {};
  CHECK(::read(fd, buf, sizeof buf) == 4);
  CHECK(std::string(buf, 4) == "ping");
  ::close(fd);

  std::string sock_path = bb.Path("sock");
  int srv = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(srv >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(sock_path.size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, sock_path.c_str());
  REQUIRE(::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(srv, 1) == 0);
  REQUIRE(::stat(sock_path.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  int cli = ::socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(::connect(cli, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  ::close(cli);
  ::close(srv);

  std::string dev = bb.Path("null");
  REQUIRE(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  REQUIRE(::stat(dev.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
  CHECK(ERRNO_OF(::open(dev.c_str(), O_RDONLY)) == EACCES);  // the mount is nodev

  std::set<std::pair<std::string, unsigned>> seen;
  DIR* dir = ::opendir(bb.Path("").c_str());
  REQUIRE(dir != nullptr);
  while (dirent* e = ::readdir(dir)) seen.insert({e->d_name, e->d_type});
  ::closedir(dir);
  CHECK(seen.count({"fifo", DT_FIFO}) == 1);
  CHECK(seen.count({"sock", DT_SOCK}) == 1);
  CHECK(seen.count({"null", DT_CHR}) == 1);
  for (const auto& p : {fifo, sock_path, dev}) CHECK(::unlink(p.c_str()) == 0);
}

TEST_CASE("reads and writes at any offset and size match a reference model", "[mounted]") {
  MountedBb bb({"--chunk-size", "4KiB"});
  REQUIRE_MOUNTED(bb);
  std::string path = bb.Path("model");
  int fd = ::open(path.c_str(), O_CREAT | O_RDWR, 0644);
  REQUIRE(fd >= 0);
  std::string model;
  std::mt19937_64 rng(42);
  for (int op = 0; op < 3000; ++op) {
    uint64_t kind = rng() % 10;
    uint64_t off = rng() % (64 * 1024);
    uint64_t len = 1 + rng() % (rng() % 4 == 0 ? 20000 : 300);
    if (kind < 5) {
      std::string data(len, '\0');
      for (auto& ch : data) ch = static_cast<char>(rng());
      REQUIRE(::pwrite(fd, data.data(), len, static_cast<off_t>(off)) == static_cast<ssize_t>(len));
      if (model.size() < off + len) model.resize(off + len, '\0');
      model.replace(off, len, data);
    } else if (kind < 9) {
      std::string buf(len, 'Z');
      ssize_t n = ::pread(fd, buf.data(), len, static_cast<off_t>(off));
      REQUIRE(n >= 0);
      std::string want = off < model.size() ? model.substr(off, len) : "";
      INFO("op " << op << " read " << len << " at " << off);
      REQUIRE(std::string(buf.data(), static_cast<size_t>(n)) == want);
    } else {
      uint64_t size = rng() % (80 * 1024);
      REQUIRE(::ftruncate(fd, static_cast<off_t>(size)) == 0);
      model.resize(size, '\0');
    }
  }
  struct stat st;
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(static_cast<uint64_t>(st.st_size) == model.size());
  REQUIRE(::close(fd) == 0);
  CHECK(ReadFile(path) == model);
}

TEST_CASE("sizes, blocks, truncate, O_TRUNC, O_APPEND and sparse files", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("f");
  WriteFile(p, std::string(1000, 'a'));
  struct stat st;
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK(st.st_size == 1000);
  CHECK(st.st_blocks == 2);
  REQUIRE(::truncate(p.c_str(), 10) == 0);
  CHECK(ReadFile(p) == std::string(10, 'a'));
  REQUIRE(::truncate(p.c_str(), 3 << 20) == 0);
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK(st.st_size == 3 << 20);
  std::string content = ReadFile(p);
  CHECK(content.substr(0, 10) == std::string(10, 'a'));
  CHECK(content.find_first_not_of('\0', 10) == std::string::npos);
  int fd = ::open(p.c_str(), O_WRONLY | O_TRUNC);
  REQUIRE(fd >= 0);
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_size == 0);
  ::close(fd);
  fd = ::open(p.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "one,", 4) == 4);
  REQUIRE(::pwrite(fd, "two", 3, 0) == 3);  // O_APPEND: pwrite appends on Linux
  ::close(fd);
  CHECK(ReadFile(p) == "one,two");
  // sparse: a byte written 1 GiB in reads back, the gap is zeros
  fd = ::open(bb.Path("sparse").c_str(), O_CREAT | O_RDWR, 0644);
  REQUIRE(::pwrite(fd, "z", 1, 1LL << 30) == 1);
  char buf[16];
  REQUIRE(::pread(fd, buf, sizeof buf, 12345678) == sizeof buf);
  CHECK(std::string(buf, sizeof buf) == std::string(sizeof buf, '\0'));
  REQUIRE(::pread(fd, buf, 1, 1LL << 30) == 1);
  CHECK(buf[0] == 'z');
  CHECK(::fsync(fd) == 0);
  CHECK(::fdatasync(fd) == 0);
  ::close(fd);
  REQUIRE(::stat(bb.Path("sparse").c_str(), &st) == 0);
  CHECK(st.st_size == (1LL << 30) + 1);
}

// Bytes the backing store's chunk files take on disk (st_blocks), all files together.
uint64_t ChunkBytesOnDisk(const std::string& root) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/chunks")) {
    struct stat st {};
    if (e.is_regular_file() && ::stat(e.path().c_str(), &st) == 0) total += uint64_t(st.st_blocks) * 512;
  }
  return total;
}

TEST_CASE("holes punched and ranges zeroed read as zeros, also from pages the kernel held", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("f");
  constexpr off_t kMiB = 1 << 20;
  std::string data(4 * kMiB, 'h');
  WriteFile(p, data);
  int fd = ::open(p.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  std::string back(data.size(), '?');
  REQUIRE(::pread(fd, back.data(), back.size(), 0) == off_t(back.size()));  // in the page cache now
  REQUIRE(::fsync(fd) == 0);
  uint64_t on_disk = ChunkBytesOnDisk(bb.root());
  REQUIRE(::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, kMiB + 100, 2 * kMiB) == 0);
  REQUIRE(::pread(fd, back.data(), back.size(), 0) == off_t(back.size()));
  std::string want = data;
  std::fill_n(want.begin() + kMiB + 100, 2 * kMiB, '\0');
  CHECK(back == want);
  CHECK(ChunkBytesOnDisk(bb.root()) + kMiB <= on_disk);  // the hole's space is given back
  struct stat st {};
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_size == 4 * kMiB);
  // Zeroing past the end grows the file; with KEEP_SIZE it does not.
  REQUIRE(::fallocate(fd, FALLOC_FL_ZERO_RANGE, 3 * kMiB, 2 * kMiB) == 0);
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_size == 5 * kMiB);
  REQUIRE(::fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, 8 * kMiB) == 0);
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_size == 5 * kMiB);
  back.assign(5 * kMiB, '?');
  REQUIRE(::pread(fd, back.data(), back.size(), 0) == off_t(back.size()));
  CHECK(back == std::string(5 * kMiB, '\0'));
  CHECK(ERRNO_OF(::fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, kMiB)) == EOPNOTSUPP);
  ::close(fd);
  CHECK(ReadFile(p) == std::string(5 * kMiB, '\0'));  // and through a new open
}

TEST_CASE("extended attributes with xattrs on: set, read, listed, removed, kept across a restart", "[mounted]") {
  MountedBb bb({"--xattrs", "on"});
  REQUIRE_MOUNTED(bb);
  std::string f = bb.Path("f");
  {
    WriteFile(f, "data");
    CHECK(ERRNO_OF(::getxattr(f.c_str(), "user.a", nullptr, 0)) == ENODATA);
    REQUIRE(::setxattr(f.c_str(), "user.a", "value", 5, XATTR_CREATE) == 0);
    CHECK(ERRNO_OF(::setxattr(f.c_str(), "user.a", "v", 1, XATTR_CREATE)) == EEXIST);
    CHECK(ERRNO_OF(::setxattr(f.c_str(), "user.none", "v", 1, XATTR_REPLACE)) == ENODATA);
    REQUIRE(::setxattr(f.c_str(), "user.b", "", 0, 0) == 0);
    char buf[64];
    CHECK(::getxattr(f.c_str(), "user.a", nullptr, 0) == 5);  // the size, when asked for none
    CHECK(ERRNO_OF(::getxattr(f.c_str(), "user.a", buf, 2)) == ERANGE);
    REQUIRE(::getxattr(f.c_str(), "user.a", buf, sizeof buf) == 5);
    CHECK(std::string(buf, 5) == "value");
    CHECK(::getxattr(f.c_str(), "user.b", buf, sizeof buf) == 0);
    ssize_t n = ::listxattr(f.c_str(), buf, sizeof buf);
    REQUIRE(n == 14);
    CHECK(std::string(buf, static_cast<size_t>(n)) == std::string("user.a\0user.b\0", 14));
    REQUIRE(::removexattr(f.c_str(), "user.b") == 0);
    CHECK(ERRNO_OF(::removexattr(f.c_str(), "user.b")) == ENODATA);
    CHECK(ERRNO_OF(::setxattr(f.c_str(), "system.other", "x", 1, 0)) == EOPNOTSUPP);
    CHECK(ReadFile(f) == "data");
    // Writes go on as before (the kernel asks for security.capability first).
    int fd = ::open(f.c_str(), O_WRONLY | O_APPEND);
    REQUIRE(fd >= 0);
    CHECK(::write(fd, "more", 4) == 4);
    ::close(fd);
  }
  bb.Stop();
  REQUIRE(bb.Start());
  char buf[16];
  REQUIRE(::getxattr(f.c_str(), "user.a", buf, sizeof buf) == 5);
  CHECK(std::string(buf, 5) == "value");
  CHECK(ReadFile(f) == "datamore");
}

TEST_CASE("chmod, chown, utimens and times from the real clock", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("f");
  time_t before = ::time(nullptr);
  WriteFile(p, "x");
  struct stat st;
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK(st.st_mtime >= before - 1);
  CHECK(st.st_mtime <= ::time(nullptr) + 1);
  REQUIRE(::chmod(p.c_str(), 0600) == 0);
  REQUIRE(::chown(p.c_str(), 1234, 5678) == 0);
  struct timespec times[2] = {{1000000000, 5}, {1100000000, 7}};
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(S_ISREG(st.st_mode));
  CHECK(st.st_uid == 1234);
  CHECK(st.st_gid == 5678);
  CHECK(st.st_atim.tv_sec == 1000000000);
  CHECK(st.st_mtim.tv_sec == 1100000000);
  CHECK(st.st_mtim.tv_nsec == 7);
  CHECK(st.st_ctime >= before - 1);
  // a write moves mtime forward to now
  int fd = ::open(p.c_str(), O_WRONLY);
  REQUIRE(::write(fd, "y", 1) == 1);
  ::close(fd);
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK(st.st_mtime >= before - 1);
}

TEST_CASE("a set-group-ID directory passes its group on, and the bit to new directories", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string shared = bb.Path("shared"), plain = bb.Path("plain");
  REQUIRE(::mkdir(shared.c_str(), 0775) == 0);
  REQUIRE(::chown(shared.c_str(), 0, 4321) == 0);
  REQUIRE(::chmod(shared.c_str(), 02775) == 0);
  REQUIRE(::mkdir(plain.c_str(), 0775) == 0);
  struct stat st;
  for (int i = 0; i < 5; ++i) {  // one process, one directory: from the second file on, a stream
    std::string f = shared + "/f" + std::to_string(i);
    WriteFile(f, "x");
    REQUIRE(::stat(f.c_str(), &st) == 0);
    CHECK(st.st_gid == 4321);
    CHECK((st.st_mode & S_ISGID) == 0);
  }
  REQUIRE(::mkdir((shared + "/sub").c_str(), 0755) == 0);
  REQUIRE(::stat((shared + "/sub").c_str(), &st) == 0);
  CHECK(st.st_gid == 4321);
  CHECK((st.st_mode & 07777) == 02755);
  WriteFile(shared + "/sub/deeper", "y");
  REQUIRE(::stat((shared + "/sub/deeper").c_str(), &st) == 0);
  CHECK(st.st_gid == 4321);
  REQUIRE(::symlink("f0", (shared + "/link").c_str()) == 0);
  REQUIRE(::lstat((shared + "/link").c_str(), &st) == 0);
  CHECK(st.st_gid == 4321);
  WriteFile(plain + "/g", "z");
  REQUIRE(::stat((plain + "/g").c_str(), &st) == 0);
  CHECK(st.st_gid == ::getegid());
  REQUIRE(::mkdir((plain + "/sub").c_str(), 0755) == 0);
  REQUIRE(::stat((plain + "/sub").c_str(), &st) == 0);
  CHECK((st.st_mode & S_ISGID) == 0);
}

// Runs `write` in a child process as user and group 65534; true when it returned true.
bool AsNobody(const std::function<bool()>& write) {
  pid_t pid = ::fork();
  if (pid == 0) _exit(::setgid(65534) == 0 && ::setuid(65534) == 0 && write() ? 0 : 1);
  int status = 0;
  return pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST_CASE("a write by another user takes set-user-ID away, and set-group-ID with group execute", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  struct Row {
    const char* name;
    int flags;
    mode_t mode, after;
  } rows[] = {
      {"append", O_WRONLY | O_APPEND, 06676, 0676},  // direct I/O: the daemon drops them
      {"append-gid-no-exec", O_WRONLY | O_APPEND, 06666, 02666},
      {"plain", O_WRONLY, 06676, 0676},  // through the page cache: the kernel asks for it
  };
  // The child opens below the mount's root by this descriptor: the directories above it may be
  // closed to other users.
  int root = ::open(bb.Path("").c_str(), O_PATH | O_DIRECTORY);
  REQUIRE(root >= 0);
  for (const Row& row : rows) {
    INFO(row.name);
    std::string f = bb.Path(row.name);
    WriteFile(f, "x");
    REQUIRE(::chmod(f.c_str(), row.mode) == 0);
    CHECK(AsNobody([&] {
      int fd = ::openat(root, row.name, row.flags);
      return fd >= 0 && ::pwrite(fd, "y", 1, 1) == 1 && ::close(fd) == 0;  // at the end either way
    }));
    struct stat st;
    REQUIRE(::stat(f.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == row.after);
    CHECK(st.st_size == 2);
  }
  ::close(root);
  // Root keeps them (CAP_FSETID).
  std::string f = bb.Path("by-root");
  WriteFile(f, "x");
  REQUIRE(::chmod(f.c_str(), 06676) == 0);
  int fd = ::open(f.c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  CHECK(::write(fd, "y", 1) == 1);
  ::close(fd);
  struct stat st;
  REQUIRE(::stat(f.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 06676);
}

TEST_CASE("an open, unlinked file keeps working until the last close", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("ghost");
  int fd = ::open(p.c_str(), O_CREAT | O_RDWR, 0644);
  REQUIRE(fd >= 0);
  std::string data(2 << 20, 'g');
  REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  REQUIRE(::unlink(p.c_str()) == 0);
  CHECK(ERRNO_OF(::access(p.c_str(), F_OK)) == ENOENT);
  REQUIRE(::write(fd, "+", 1) == 1);
  struct stat st;
  REQUIRE(::fstat(fd, &st) == 0);
  CHECK(st.st_size == (2 << 20) + 1);
  CHECK(st.st_nlink == 0);  // no name links to it any more
  char buf[4];
  REQUIRE(::pread(fd, buf, 4, (2 << 20) - 3) == 4);
  CHECK(std::string(buf, 4) == "ggg+");
  // The file's folder of chunks (beside the LAYOUT file, which names the store's layout).
  auto chunk_folders = [&] {
    size_t n = 0;
    for (auto& e : std::filesystem::directory_iterator(bb.root() + "/chunks")) n += e.is_directory();
    return n;
  };
  CHECK(chunk_folders() == 1);
  REQUIRE(::close(fd) == 0);
  // the last close freed the data (the kernel's release may trail close by a moment)
  size_t left = 1;
  for (int i = 0; i < 200 && left > 0; ++i) {
    left = chunk_folders();
    if (left) ::usleep(10000);
  }
  CHECK(left == 0);
}

void NoOp(int) {}

TEST_CASE("record locks: conflicts refused and named, closes drop them, F_SETLKW waits and a signal ends it",
          "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("locked");
  WriteFile(p, "0123456789");
  int a = ::open(p.c_str(), O_RDWR), b = ::open(p.c_str(), O_RDWR);
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  auto lock = [](short type, off_t start, off_t len) {
    struct flock l {};
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = start;
    l.l_len = len;
    return l;
  };
  // OFD locks: each open file description is an owner of its own.
  struct flock w = lock(F_WRLCK, 0, 5);
  REQUIRE(::fcntl(a, F_OFD_SETLK, &w) == 0);
  struct flock r = lock(F_RDLCK, 2, 1);
  CHECK(ERRNO_OF(::fcntl(b, F_OFD_SETLK, &r)) == EAGAIN);
  struct flock q = r;
  REQUIRE(::fcntl(b, F_OFD_GETLK, &q) == 0);
  CHECK(q.l_type == F_WRLCK);
  CHECK(q.l_start == 0);
  CHECK(q.l_len == 5);
  r.l_start = 5;
  CHECK(::fcntl(b, F_OFD_SETLK, &r) == 0);  // past a's range
  // F_OFD_SETLKW waits until a's description is closed.
  auto waiter = std::async(std::launch::async, [&] {
    struct flock x = lock(F_WRLCK, 0, 5);
    return ::fcntl(b, F_OFD_SETLKW, &x);
  });
  CHECK(waiter.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  REQUIRE(::close(a) == 0);
  REQUIRE(waiter.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(waiter.get() == 0);

  // POSIX locks of another process: named with its pid, gone when it exits.
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int fd = ::open(p.c_str(), O_RDWR);
    struct flock all = lock(F_WRLCK, 20, 0);
    char c = ::fcntl(fd, F_SETLK, &all) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  REQUIRE(c == 'y');
  int d = ::open(p.c_str(), O_RDWR);
  REQUIRE(d >= 0);
  struct flock t = lock(F_WRLCK, 100, 1);
  REQUIRE(::fcntl(d, F_GETLK, &t) == 0);
  CHECK(t.l_type == F_WRLCK);
  CHECK(t.l_pid == child);
  CHECK(t.l_len == 0);  // to the end of the file
  t = lock(F_WRLCK, 100, 1);
  int err = ERRNO_OF(::fcntl(d, F_SETLK, &t));
  CHECK((err == EAGAIN || err == EACCES));
  // A signal ends a wait with EINTR.
  struct sigaction on {
  }, before{};
  on.sa_handler = NoOp;
  REQUIRE(::sigaction(SIGALRM, &on, &before) == 0);
  ::alarm(1);
  CHECK(ERRNO_OF(::fcntl(d, F_SETLKW, &t)) == EINTR);
  ::sigaction(SIGALRM, &before, nullptr);
  REQUIRE(::write(done[1], "x", 1) == 1);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(::fcntl(d, F_SETLKW, &t) == 0);  // the child's exit closed its file
  for (int fd : {b, d, ready[0], ready[1], done[0], done[1]}) ::close(fd);
}

TEST_CASE("record locks: of two processes each waiting for the other's lock, one is answered EDEADLK", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("deadlock");
  WriteFile(p, "01");
  auto byte = [](short type, off_t at) {
    struct flock l {};
    l.l_type = type;
    l.l_whence = SEEK_SET;
    l.l_start = at;
    l.l_len = 1;
    return l;
  };
  // Each process holds one byte and waits for the other's; the one told EDEADLK lets its byte go,
  // so the other's wait ends. Without detection both would wait until the alarm (EINTR).
  struct sigaction on {
  }, before{};
  on.sa_handler = NoOp;
  REQUIRE(::sigaction(SIGALRM, &on, &before) == 0);
  int ready[2], result[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(result) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int fd = ::open(p.c_str(), O_RDWR);
    struct flock mine = byte(F_WRLCK, 1), theirs = byte(F_WRLCK, 0);
    char c = ::fcntl(fd, F_SETLK, &mine) == 0 ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::alarm(10);
    int err = ::fcntl(fd, F_SETLKW, &theirs) == 0 ? 0 : errno;
    if (err == EDEADLK) {
      mine.l_type = F_UNLCK;
      (void)::fcntl(fd, F_SETLK, &mine);
    }
    (void)!::write(result[1], &err, sizeof err);
    ::_exit(0);
  }
  int fd = ::open(p.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  struct flock mine = byte(F_WRLCK, 0), theirs = byte(F_WRLCK, 1);
  REQUIRE(::fcntl(fd, F_SETLK, &mine) == 0);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  REQUIRE(c == 'y');
  ::usleep(200000);  // the child waits by now
  ::alarm(10);
  int err = ::fcntl(fd, F_SETLKW, &theirs) == 0 ? 0 : errno;
  ::alarm(0);
  if (err == EDEADLK) {
    mine.l_type = F_UNLCK;
    REQUIRE(::fcntl(fd, F_SETLK, &mine) == 0);
  }
  int child_err = -1;
  REQUIRE(::read(result[0], &child_err, sizeof child_err) == sizeof child_err);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  ::sigaction(SIGALRM, &before, nullptr);
  INFO("this process: " << err << ", the child: " << child_err);
  CHECK(((err == EDEADLK && child_err == 0) || (err == 0 && child_err == EDEADLK)));
  // Waits that make no cycle still wait: nobody holds byte 1 now, byte 0 is this process's own.
  struct flock both = byte(F_WRLCK, 0);
  both.l_len = 2;
  CHECK(::fcntl(fd, F_SETLKW, &both) == 0);
  for (int f : {fd, ready[0], ready[1], result[0], result[1]}) ::close(f);
}

TEST_CASE(
    "flock: another open file's lock refuses LOCK_NB, a wait lasts until the holder's last close, a signal ends it",
    "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string p = bb.Path("flocked");
  WriteFile(p, "x");
  int a = ::open(p.c_str(), O_RDWR), b = ::open(p.c_str(), O_RDWR), c = ::open(p.c_str(), O_RDONLY);
  REQUIRE(a >= 0);
  REQUIRE(b >= 0);
  REQUIRE(c >= 0);
  REQUIRE(::flock(a, LOCK_EX) == 0);
  CHECK(ERRNO_OF(::flock(b, LOCK_SH | LOCK_NB)) == EWOULDBLOCK);
  // A record lock of the file is another kind: neither stops the other.
  struct flock w {};
  w.l_type = F_WRLCK;
  w.l_whence = SEEK_SET;
  CHECK(::fcntl(b, F_OFD_SETLK, &w) == 0);
  // A signal ends a wait with EINTR.
  struct sigaction on {
  }, before{};
  on.sa_handler = NoOp;
  REQUIRE(::sigaction(SIGALRM, &on, &before) == 0);
  ::alarm(1);
  CHECK(ERRNO_OF(::flock(b, LOCK_EX)) == EINTR);
  ::sigaction(SIGALRM, &before, nullptr);
  // A wait lasts until the holder's open file description is closed by its last descriptor.
  int a2 = ::dup(a);
  REQUIRE(a2 >= 0);
  auto waiter = std::async(std::launch::async, [&] { return ::flock(b, LOCK_EX); });
  CHECK(waiter.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  REQUIRE(::close(a) == 0);
  CHECK(waiter.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  REQUIRE(::close(a2) == 0);
  REQUIRE(waiter.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(waiter.get() == 0);
  // LOCK_EX turns into LOCK_SH, which another shares; an unlock lets the other have it alone.
  REQUIRE(::flock(b, LOCK_SH) == 0);
  CHECK(::flock(c, LOCK_SH | LOCK_NB) == 0);
  CHECK(ERRNO_OF(::flock(c, LOCK_EX | LOCK_NB)) == EWOULDBLOCK);
  REQUIRE(::flock(b, LOCK_UN) == 0);
  CHECK(::flock(c, LOCK_EX | LOCK_NB) == 0);
  for (int fd : {b, c}) ::close(fd);
  // The daemon took every one of them (with the kernel keeping flock locks itself, as before,
  // none reaches it): its count of flock requests.
  std::string bbctl = (std::filesystem::path(MountedBb::BbdPath()).parent_path() / "bbctl").string();
  CHECK(Sh(bbctl + " stats --root " + bb.root() +
           " --json | python3 -c \"import json, sys; sys.exit(json.load(sys.stdin)[0]['ops']['flock'] < 8)\"") == 0);
}

TEST_CASE("rename of files and directories", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  WriteFile(bb.Path("a"), "AAA");
  WriteFile(bb.Path("b"), "BBBBB");
  struct stat sa;
  REQUIRE(::stat(bb.Path("a").c_str(), &sa) == 0);
  REQUIRE(::rename(bb.Path("a").c_str(), bb.Path("b").c_str()) == 0);
  CHECK(ERRNO_OF(::access(bb.Path("a").c_str(), F_OK)) == ENOENT);
  CHECK(ReadFile(bb.Path("b")) == "AAA");
  struct stat sb;
  REQUIRE(::stat(bb.Path("b").c_str(), &sb) == 0);
  CHECK(sb.st_ino == sa.st_ino);
  WriteFile(bb.Path("c"), "C");
  CHECK(ERRNO_OF(::renameat2(AT_FDCWD, bb.Path("c").c_str(), AT_FDCWD, bb.Path("b").c_str(), RENAME_NOREPLACE)) ==
        EEXIST);
  REQUIRE(::mkdir(bb.Path("d").c_str(), 0755) == 0);
  REQUIRE(::rename(bb.Path("d").c_str(), bb.Path("e").c_str()) == 0);    // empty directory
  REQUIRE(::rename(bb.Path("c").c_str(), bb.Path("e/c").c_str()) == 0);  // across directories
  CHECK(ReadFile(bb.Path("e/c")) == "C");
  CHECK(ERRNO_OF(::rename(bb.Path("b").c_str(), bb.Path("e").c_str())) == EISDIR);
  // A directory holding a tree moves with it; the kernel's names below follow.
  REQUIRE(::mkdir(bb.Path("e/sub").c_str(), 0755) == 0);
  WriteFile(bb.Path("e/sub/deep"), "D");
  struct stat deep;
  REQUIRE(::stat(bb.Path("e/sub/deep").c_str(), &deep) == 0);
  REQUIRE(::rename(bb.Path("e").c_str(), bb.Path("f").c_str()) == 0);
  CHECK(ERRNO_OF(::access(bb.Path("e").c_str(), F_OK)) == ENOENT);
  CHECK(ReadFile(bb.Path("f/c")) == "C");
  CHECK(ReadFile(bb.Path("f/sub/deep")) == "D");
  struct stat moved;
  REQUIRE(::stat(bb.Path("f/sub/deep").c_str(), &moved) == 0);
  CHECK(moved.st_ino == deep.st_ino);
  REQUIRE(::stat(bb.Path("f").c_str(), &moved) == 0);
  CHECK(moved.st_nlink == 3);
  CHECK(Sh("mv " + bb.Path("f") + " " + bb.Path("g") + " && ls -R " + bb.Path("g") + " | grep -q deep") == 0);
  CHECK(ReadFile(bb.Path("g/sub/deep")) == "D");
}

TEST_CASE("readdir of a directory with 100,000 entries", "[mounted][large]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string dir = bb.Path("big");
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  constexpr int kFiles = 100000;
  for (int i = 0; i < kFiles; ++i) {
    std::string p = dir + "/file." + std::to_string(i);
    int fd = ::open(p.c_str(), O_CREAT | O_WRONLY, 0644);
    REQUIRE(fd >= 0);
    ::close(fd);
  }
  DIR* d = ::opendir(dir.c_str());
  REQUIRE(d != nullptr);
  std::set<std::string> names;
  bool dot = false, dotdot = false;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == ".")
      dot = true;
    else if (n == "..")
      dotdot = true;
    else
      names.insert(n);
  }
  ::closedir(d);
  CHECK(dot);
  CHECK(dotdot);
  CHECK(names.size() == kFiles);
  CHECK(names.count("file.0") == 1);
  CHECK(names.count("file.99999") == 1);
  CHECK(Sh("rm -rf " + dir) == 0);
  CHECK(ERRNO_OF(::access(dir.c_str(), F_OK)) == ENOENT);
}

TEST_CASE("symlinks and statfs", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  WriteFile(bb.Path("target"), "T");
  REQUIRE(::symlink("target", bb.Path("link").c_str()) == 0);
  char buf[64];
  ssize_t n = ::readlink(bb.Path("link").c_str(), buf, sizeof buf);
  REQUIRE(n == 6);
  CHECK(std::string(buf, 6) == "target");
  CHECK(ReadFile(bb.Path("link")) == "T");
  struct stat st;
  REQUIRE(::lstat(bb.Path("link").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  struct statvfs sv, backing;
  REQUIRE(::statvfs(bb.mnt().c_str(), &sv) == 0);
  REQUIRE(::statvfs(bb.root().c_str(), &backing) == 0);
  CHECK(sv.f_namemax == 255);
  CHECK(sv.f_blocks * sv.f_frsize == backing.f_blocks * backing.f_frsize);
  CHECK(sv.f_bavail > 0);
}

TEST_CASE("tree, sizes, modes, owners and times survive a restart", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  REQUIRE(::mkdir(bb.Path("dir").c_str(), 0750) == 0);
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  WriteFile(bb.Path("dir/file"), data);
  REQUIRE(::chown(bb.Path("dir/file").c_str(), 42, 43) == 0);
  REQUIRE(::chmod(bb.Path("dir/file").c_str(), 0640) == 0);
  struct timespec times[2] = {{1500000000, 0}, {1600000000, 0}};
  REQUIRE(::utimensat(AT_FDCWD, bb.Path("dir/file").c_str(), times, 0) == 0);
  REQUIRE(::symlink("dir/file", bb.Path("link").c_str()) == 0);
  REQUIRE(::link(bb.Path("dir/file").c_str(), bb.Path("hard").c_str()) == 0);
  bb.Stop();
  CHECK_FALSE(MountedBb::IsMounted(bb.mnt()));
  REQUIRE(bb.Start());
  struct stat st;
  REQUIRE(::stat(bb.Path("dir").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0750);
  REQUIRE(::stat(bb.Path("dir/file").c_str(), &st) == 0);
  CHECK(st.st_size == static_cast<off_t>(data.size()));
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(st.st_uid == 42);
  CHECK(st.st_gid == 43);
  CHECK(st.st_mtime == 1600000000);
  CHECK(st.st_atime == 1500000000);
  CHECK(ReadFile(bb.Path("dir/file")) == data);
  CHECK(ReadFile(bb.Path("link")) == data);
  struct stat hard {};
  REQUIRE(::stat(bb.Path("hard").c_str(), &hard) == 0);
  CHECK(hard.st_ino == st.st_ino);
  CHECK(hard.st_nlink == 2);
  CHECK(hard.st_uid == 42);
  CHECK(ReadFile(bb.Path("hard")) == data);
}

TEST_CASE("after kill -9, everything fsynced before the kill is there", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  std::string data(1 << 20, 'k');
  int fd = ::open(bb.Path("synced").c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, data.data(), data.size()) == static_cast<ssize_t>(data.size()));
  REQUIRE(::write(fd, "end", 3) == 3);
  REQUIRE(::fsync(fd) == 0);
  REQUIRE(::mkdir(bb.Path("d").c_str(), 0700) == 0);
  int dfd = ::open(bb.Path("d").c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(::fsync(dfd) == 0);
  ::close(dfd);
  bb.Kill9();
  ::close(fd);  // the daemon is gone; the descriptor is dead
  REQUIRE(bb.Start());
  struct stat st;
  REQUIRE(::stat(bb.Path("synced").c_str(), &st) == 0);
  CHECK(st.st_size == (1 << 20) + 3);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(ReadFile(bb.Path("synced")) == data + "end");
  CHECK(::access(bb.Path("d").c_str(), F_OK) == 0);
}

TEST_CASE("an aborted connection answers with ENOTCONN and the daemon leaves", "[mounted]") {
  MountedBb bb;
  REQUIRE_MOUNTED(bb);
  WriteFile(bb.Path("f"), "data");
  CHECK(AbortFuseConnection("/no such mount point here").code() == EINVAL);
  // An open file keeps the mount busy, so it stays mounted (without fusectl the abort is a
  // forced unmount, which would otherwise also unmount it).
  int fd = ::open(bb.Path("f").c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(AbortFuseConnection(bb.mnt()).ok());
  struct stat st;
  CHECK(ERRNO_OF(::stat(bb.Path("never looked up").c_str(), &st)) == ENOTCONN);  // nothing cached
  ::close(fd);
  bb.Stop();  // the session has ended: SIGTERM finds a daemon that leaves at once
  CHECK_FALSE(MountedBb::IsMounted(bb.mnt()));
  REQUIRE(bb.Start());
  CHECK(ReadFile(bb.Path("f")) == "data");
}

TEST_CASE("a full backing store gives ENOSPC and keeps existing files intact", "[mounted]") {
  char tmpl[] = "/tmp/bb-small-XXXXXX";
  std::string backing = ::mkdtemp(tmpl);
  REQUIRE(::mount("tmpfs", backing.c_str(), "tmpfs", 0, "size=48m") == 0);
  {
    MountedBb bb({"--log-level", "error"}, backing + "/root");
    INFO(bb.error());
    if (bb.running()) {
      std::string keep(4 << 20, 'K');
      WriteFile(bb.Path("keep"), keep);
      int fd = ::open(bb.Path("filler").c_str(), O_CREAT | O_WRONLY, 0644);
      REQUIRE(fd >= 0);
      std::string block(1 << 20, 'F');
      int err = 0;
      for (int i = 0; i < 200; ++i) {
        if (::write(fd, block.data(), block.size()) < 0) {
          err = errno;
          break;
        }
      }
      CHECK(err == ENOSPC);
      ::close(fd);
      CHECK(ReadFile(bb.Path("keep")) == keep);
      // metadata still works while data is refused, and removing frees the space again
      CHECK(::mkdir(bb.Path("still-works").c_str(), 0755) == 0);
      REQUIRE(::unlink(bb.Path("filler").c_str()) == 0);
      // A small file (its chunk a metadata value) waits for the removal's space like a large one.
      std::string small(3901, 's');
      WriteFile(bb.Path("small-after"), small);
      CHECK(ReadFile(bb.Path("small-after")) == small);
      WriteFile(bb.Path("after"), std::string(1 << 20, 'A'));
      CHECK(ReadFile(bb.Path("after")) == std::string(1 << 20, 'A'));
      CHECK(ReadFile(bb.Path("keep")) == keep);
      // A fallocate refused for space halfway gives its chunks back with the file's removal
      // (the last close frees them, so the space may come back just after unlink returns).
      auto free_mib = [&] {
        struct statvfs v {};
        REQUIRE(::statvfs(bb.Path("").c_str(), &v) == 0);
        return static_cast<uint64_t>(v.f_bavail) * v.f_frsize >> 20;
      };
      uint64_t free_before = free_mib();
      int pf = ::open(bb.Path("prealloc").c_str(), O_CREAT | O_RDWR, 0644);
      REQUIRE(pf >= 0);
      CHECK(ERRNO_OF(::fallocate(pf, 0, 0, off_t{200} << 20)) == ENOSPC);
      CHECK(free_mib() + 8 < free_before);  // it took most of the space before it was refused
      ::close(pf);
      REQUIRE(::unlink(bb.Path("prealloc").c_str()) == 0);
      for (int i = 0; i < 100 && free_mib() + 1 < free_before; ++i) ::usleep(50'000);
      CHECK(free_mib() + 1 >= free_before);
    }
    CHECK(bb.running());
  }
  ::umount2(backing.c_str(), MNT_DETACH);
  std::filesystem::remove_all(backing);
}

// Fills a file outside the daemon until the filesystem holding it has no byte left.
void FillToTheLastByte(const std::string& path) {
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  REQUIRE(fd >= 0);
  std::string block(1 << 20, 'F');
  for (size_t size = block.size(); size >= 512; size /= 2) {
    while (::write(fd, block.data(), size) == static_cast<ssize_t>(size)) {
    }
  }
  ::close(fd);
}

TEST_CASE("a backing store filled to its last byte by another process loses no entry, and bbd starts again on it",
          "[mounted]") {
  char tmpl[] = "/tmp/bb-full-XXXXXX";
  std::string backing = ::mkdtemp(tmpl);
  REQUIRE(::mount("tmpfs", backing.c_str(), "tmpfs", 0, "size=48m") == 0);
  {
    MountedBb bb({"--log-level", "error"}, backing + "/root");
    INFO(bb.error());
    REQUIRE(bb.running());
    REQUIRE(::mkdir(bb.Path("d").c_str(), 0755) == 0);
    FillToTheLastByte(backing + "/fill");
    std::vector<std::string> made;
    int refused = 0;
    auto make = [&](const std::string& name) {
      if (::mkdir(bb.Path("d/" + name).c_str(), 0755) == 0) {
        made.push_back(name);
        return true;
      }
      int err = errno;
      CHECK(err == ENOSPC);
      ++refused;
      return false;
    };
    for (int i = 0; i < 3000; ++i) make("while-full-" + std::to_string(i));
    INFO("made " << made.size() << ", refused " << refused);
    CHECK(made.size() > 2000);  // the database's spare file gave it room
    REQUIRE(::unlink((backing + "/fill").c_str()) == 0);
    // A database waiting for room looks again within 200 ms.
    for (int tries = 0; tries < 20 && !make("after-0"); ++tries) ::usleep(50000);
    for (int i = 1; i < 300; ++i) CHECK(make("after-" + std::to_string(i)));
    bb.Stop();
    REQUIRE(bb.Start());  // the metadata database opens again
    for (const auto& name : made) CHECK(::access(bb.Path("d/" + name).c_str(), F_OK) == 0);
    size_t listed = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(bb.Path("d"))) ++listed;
    CHECK(listed == made.size());
  }
  ::umount2(backing.c_str(), MNT_DETACH);
  std::filesystem::remove_all(backing);
}

TEST_CASE("bbd refuses bad starts with a clear message and a non-zero exit", "[mounted]") {
  char tmpl[] = "/tmp/bb-start-XXXXXX";
  std::string tmp = ::mkdtemp(tmpl);
  std::string out;
  SECTION("missing mount point") {
    CHECK(RunBbd({"--root", tmp + "/r", "--mount", tmp + "/nope", "-f"}, &out) == 1);
    CHECK_THAT(out, Catch::Contains("mount point " + tmp + "/nope: No such file or directory"));
  }
  SECTION("unknown config field, with its line") {
    std::ofstream(tmp + "/bad.yaml") << "root: " << tmp << "/r\nmount: " << tmp << "\nthreads: 4\n";
    CHECK(RunBbd({"--config", tmp + "/bad.yaml", "-f"}, &out) == 1);
    CHECK_THAT(out, Catch::Contains("bad.yaml:3: unknown field 'threads'"));
  }
  SECTION("bad flag value") {
    CHECK(RunBbd({"--root", tmp + "/r", "--mount", tmp, "--chunk-size", "1000", "-f"}, &out) == 1);
    CHECK_THAT(out, Catch::Contains("chunk_size"));
  }
  SECTION("a root whose chunks have another layout, left as it is") {
    std::filesystem::create_directories(tmp + "/r/chunks/0000000000000001");
    std::filesystem::create_directories(tmp + "/m");
    std::ofstream(tmp + "/r/chunks/0000000000000001/5") << "a chunk in a file of its own";
    CHECK(RunBbd({"--root", tmp + "/r", "--mount", tmp + "/m", "-f"}, &out) == 1);
    CHECK_THAT(out, Catch::Contains(tmp + "/r/chunks holds data but no LAYOUT file"));
    CHECK_FALSE(MountedBb::IsMounted(tmp + "/m"));
    CHECK(std::filesystem::file_size(tmp + "/r/chunks/0000000000000001/5") == 28);
  }
  SECTION("already mounted, and a root held by another daemon") {
    MountedBb bb;
    REQUIRE_MOUNTED(bb);
    CHECK(RunBbd({"--root", tmp + "/r", "--mount", bb.mnt()}, &out) == 1);
    CHECK_THAT(out, Catch::Contains("already has a file system mounted"));
    std::filesystem::create_directories(tmp + "/m2");
    CHECK(RunBbd({"--root", bb.root(), "--mount", tmp + "/m2"}, &out) == 1);
    CHECK_THAT(out, Catch::Contains("is in use by another bbd"));
    CHECK_FALSE(MountedBb::IsMounted(tmp + "/m2"));
  }
  std::filesystem::remove_all(tmp);
}

}  // namespace
}  // namespace bb::test
