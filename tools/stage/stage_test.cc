// Staging on local folders: a tree with files around the piece size, empty files, symlinks, a
// FIFO and nested directories arrives byte for byte with its modes and times; a second run
// copies nothing; a corrupted or missing copy is copied again and only it; the manifest's
// format and its errors; what cannot be staged is named.
#include "tools/stage/stage.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "fs/base/temp_dir.h"

namespace bb::stage {
namespace {

void Put(const std::string& path, const std::string& data) { std::ofstream(path, std::ios::binary) << data; }

std::string Get(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Bytes(size_t n, int seed) {
  std::string s(n, '\0');
  uint32_t x = 2463534242u + static_cast<uint32_t>(seed);
  for (char& c : s) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

// src/: a (1000 B), big (3.5 pieces), exact (2 pieces), empty, sub/deeper/c (mode 0600),
// link -> a, fifo; mtimes set to known values.
void MakeTree(const std::string& src, uint64_t piece) {
  ::mkdir(src.c_str(), 0755);
  ::mkdir((src + "/sub").c_str(), 0750);
  ::mkdir((src + "/sub/deeper").c_str(), 0700);
  Put(src + "/a", Bytes(1000, 1));
  Put(src + "/big", Bytes(piece * 7 / 2, 2));
  Put(src + "/exact", Bytes(piece * 2, 3));
  Put(src + "/empty", "");
  Put(src + "/sub/deeper/c", Bytes(5000, 4));
  ::chmod((src + "/sub/deeper/c").c_str(), 0600);
  REQUIRE(::symlink("a", (src + "/link").c_str()) == 0);
  REQUIRE(::mkfifo((src + "/fifo").c_str(), 0640) == 0);
  struct timespec ts[2] = {{1'600'000'000, 123'456'789}, {1'700'000'000, 987'654'321}};
  for (const char* f : {"/a", "/big", "/sub/deeper/c", "/sub", ""})
    REQUIRE(::utimensat(AT_FDCWD, (src + f).c_str(), ts, 0) == 0);
}

void CheckSame(const std::string& src, const std::string& dst) {
  auto s = Walk(src), d = Walk(dst);
  REQUIRE(s.has_value());
  REQUIRE(d.has_value());
  REQUIRE(s->size() == d->size());
  for (size_t i = 0; i < s->size(); ++i) {
    const Entry &a = (*s)[i], &b = (*d)[i];
    INFO(a.rel);
    CHECK(a.rel == b.rel);
    CHECK(a.kind == b.kind);
    CHECK(a.size == b.size);
    CHECK(a.target == b.target);
    if (a.kind != Kind::kSymlink) CHECK(a.mode == b.mode);
    CHECK(a.mtime_ns == b.mtime_ns);
    if (a.kind == Kind::kFile) CHECK(Get(src + "/" + a.rel) == Get(dst + "/" + b.rel));
  }
}

TEST_CASE("pieces and file hashes", "[stage]") {
  using P = std::vector<std::pair<uint64_t, uint64_t>>;
  CHECK(Pieces(0, 4) == P{{0, 0}});
  CHECK(Pieces(4, 4) == P{{0, 4}});
  CHECK(Pieces(9, 4) == P{{0, 4}, {4, 4}, {8, 1}});
  CHECK(FileHash({1, 2}) != FileHash({2, 1}));
  CHECK(FileHash({1, 2}) == FileHash({1, 2}));
}

TEST_CASE("a tree arrives whole, verified, with modes, times and links, a second run copies nothing", "[stage]") {
  TempDir t("bb-stage");
  const uint64_t piece = 4096;
  MakeTree(t.path + "/src", piece);
  Options o{t.path + "/src", t.path + "/dst", "", 4, piece};
  int ticks = 0;
  auto r = Stage(o, [&](const Progress&) { ++ticks; });
  REQUIRE(r.has_value());
  CHECK(r->failures.empty());
  CHECK(r->files_copied == 5);
  CHECK(r->progress.files_total == 5);
  CHECK(r->bytes_copied == 1000 + piece * 7 / 2 + piece * 2 + 5000);
  CheckSame(o.src, o.dst);
  auto m = ParseManifest(Get(t.path + "/dst.bbstage.json"), "m");
  REQUIRE(m.has_value());
  CHECK(m->files.size() == 5);

  auto again = Stage(o, nullptr);
  REQUIRE(again.has_value());
  CHECK(again->failures.empty());
  CHECK(again->files_copied == 0);
  CHECK(again->files_verified_already == 5);
}

TEST_CASE("resume: a corrupted, a missing and a changed file are copied again, and only they", "[stage]") {
  TempDir t("bb-stage");
  const uint64_t piece = 4096;
  MakeTree(t.path + "/src", piece);
  Options o{t.path + "/src", t.path + "/dst", "", 3, piece};
  REQUIRE(Stage(o, nullptr).has_value());
  // Same size, one byte changed, times put back: only the checksum can tell.
  std::string big = Get(o.dst + "/big");
  big[5000] ^= 1;
  Put(o.dst + "/big", big);
  struct timespec ts[2] = {{1'600'000'000, 0}, {1'700'000'000, 987'654'321}};
  REQUIRE(::utimensat(AT_FDCWD, (o.dst + "/big").c_str(), ts, 0) == 0);
  REQUIRE(::unlink((o.dst + "/sub/deeper/c").c_str()) == 0);
  Put(o.src + "/a", Bytes(1000, 9));  // the source changed since
  auto r = Stage(o, nullptr);
  REQUIRE(r.has_value());
  CHECK(r->failures.empty());
  CHECK(r->files_copied == 3);
  CHECK(r->files_verified_already == 2);
  CheckSame(o.src, o.dst);
}

TEST_CASE("a single file, into a directory or to a name", "[stage]") {
  TempDir t("bb-stage");
  Put(t.path + "/f", Bytes(10000, 5));
  ::mkdir((t.path + "/into").c_str(), 0755);
  auto r = Stage(Options{t.path + "/f", t.path + "/into", "", 2, 3000}, nullptr);
  REQUIRE(r.has_value());
  CHECK(r->failures.empty());
  CHECK(Get(t.path + "/into/f") == Get(t.path + "/f"));
  r = Stage(Options{t.path + "/f", t.path + "/g", "", 2, 3000}, nullptr);
  REQUIRE(r.has_value());
  CHECK(Get(t.path + "/g") == Get(t.path + "/f"));
}

TEST_CASE("what cannot be staged is named, and a missing source or a bad manifest stops it", "[stage]") {
  TempDir t("bb-stage");
  ::mkdir((t.path + "/src").c_str(), 0755);
  Put(t.path + "/src/ok", "fine");
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::string sock = t.path + "/src/sock";
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  ::close(fd);
  Options o{t.path + "/src", t.path + "/dst", "", 2, 4096};
  auto r = Stage(o, nullptr);
  REQUIRE(r.has_value());
  REQUIRE(r->failures.size() == 1);
  CHECK(r->failures[0].find("sock") != std::string::npos);
  CHECK(Get(t.path + "/dst/ok") == "fine");

  auto missing = Stage(Options{t.path + "/nothing", t.path + "/d2", "", 2, 4096}, nullptr);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code() == ENOENT);
  CHECK(missing.error().message().find("nothing") != std::string::npos);

  Put(t.path + "/dst.bbstage.json", "{\"version\": 1, \"files\": 3}");
  auto bad = Stage(o, nullptr);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code() == EINVAL);
  CHECK(bad.error().message().find("dst.bbstage.json") != std::string::npos);
}

TEST_CASE("the manifest: round trip, and each malformed field named", "[stage]") {
  Manifest m{"/in", "/out", 64, {{"a", {3, 7, 0xdeadbeef}}, {"b/c", {0, -1, 1}}}};
  auto back = ParseManifest(FormatManifest(m), "m.json");
  REQUIRE(back.has_value());
  CHECK(back->source == "/in");
  CHECK(back->piece_bytes == 64);
  REQUIRE(back->files.size() == 2);
  CHECK(back->files[0].second.hash == 0xdeadbeef);
  CHECK(back->files[1].second.mtime_ns == -1);
  // Names that are not UTF-8 (JSON strings must be) keep their bytes.
  const std::string odd = "bad\xff\xfe name", utf8 =
                                                  "\xc3\xbc"
                                                  "n"
                                                  "\xc3\xaf"
                                                  "c"
                                                  "\xc3\xb6"
                                                  "d"
                                                  "\xc3\xa9";
  Manifest n{"/in/\xff", "/out", 64, {{odd, {1, 2, 3}}, {utf8, {4, 5, 6}}, {"\xc0\x80", {7, 8, 9}}}};
  std::string text = FormatManifest(n);
  CHECK(text.find("path_hex") != std::string::npos);
  CHECK(text.find(utf8) != std::string::npos);  // valid UTF-8 stays readable
  auto odd_back = ParseManifest(text, "m.json");
  REQUIRE(odd_back.has_value());
  CHECK(odd_back->source == "/in/\xff");
  CHECK(odd_back->files[0].first == odd);
  CHECK(odd_back->files[1].first == utf8);
  CHECK(odd_back->files[2].first == "\xc0\x80");  // an overlong form is not UTF-8: hex too
  CHECK(ParseManifest("{\"version\":1,\"source_hex\":\"zz\",\"destination\":\"b\",\"piece_bytes\":1,\"files\":[]}",
                      "m.json")
            .error()
            .message()
            .find("source_hex 'zz' is not hex bytes") != std::string::npos);
  for (const char* text : {"", "[]", "{\"version\": 2}", "{\"version\": 1}",
                           "{\"version\":1,\"source\":\"a\",\"destination\":\"b\",\"piece_bytes\":1,"
                           "\"files\":[{\"path\":\"x\",\"size\":1,\"mtime_ns\":0,\"xxh3_64\":\"12\"}]}"}) {
    INFO(text);
    auto r = ParseManifest(text, "m.json");
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message().find("m.json") != std::string::npos);
  }
}

}  // namespace
}  // namespace bb::stage
