#include "fs/base/auth.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <thread>

#include "fs/base/temp_dir.h"

namespace bb::auth {
namespace {

Key KeyOf(uint8_t b) {
  Key k;
  k.fill(b);
  return k;
}

// Runs the serving side of one handshake on `fd`: reads the client's bytes into a Responder
// and answers (admits with `payload`, or refuses a bad hello). Returns what Take said.
Result<std::optional<Peer>> Serve(int fd, const Key& key, const std::string& payload) {
  Responder r(key);
  if (::write(fd, r.challenge().data(), r.challenge().size()) < 0) return Status(EIO, "write");
  for (;;) {
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return Status(EIO, "closed");
    auto got = r.Take({buf, static_cast<size_t>(n)});
    if (!got || *got) {
      std::string out = got ? r.Accept(7, payload) : Responder::Refuse(got.error().message());
      if (::write(fd, out.data(), out.size()) < 0) return Status(EIO, "write");
      return got;
    }
  }
}

struct Pair {
  int fd[2];
  Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd) == 0); }
  ~Pair() {
    ::close(fd[0]);
    ::close(fd[1]);
  }
};

// One handshake over a socket pair: the server (Serve) with `server_key` answering
// `server_payload`, the client (Dial) as node 3 with `client_key` and `client_payload`.
struct Outcome {
  Result<std::optional<Peer>> served = Status(EIO, "not run");
  Result<Peer> dialed = Status(EIO, "not run");
};
Outcome Handshake(const Key& server_key, const std::string& server_payload, const Key& client_key,
                  const std::string& client_payload) {
  Pair p;
  Outcome o;
  std::thread server([&] { o.served = Serve(p.fd[0], server_key, server_payload); });
  o.dialed = Dial(p.fd[1], client_key, 3, client_payload, 2000);
  server.join();
  return o;
}

TEST_CASE("both sides prove the key and learn each other's id and payload") {
  auto [served, dialed] = Handshake(KeyOf(1), "token+address", KeyOf(1), "hello payload");
  REQUIRE(dialed.has_value());
  CHECK(dialed->id == 7);
  CHECK(dialed->payload == "token+address");
  REQUIRE(served.has_value());
  REQUIRE(served->has_value());
  CHECK((*served)->id == 3);
  CHECK((*served)->payload == "hello payload");
}

TEST_CASE("a client with another key is refused, and learns why") {
  auto [served, dialed] = Handshake(KeyOf(1), "secret", KeyOf(2), "");
  REQUIRE(!served.has_value());
  CHECK(served.error().code() == EACCES);
  REQUIRE(!dialed.has_value());
  CHECK(dialed.error().code() == EACCES);
  CHECK(dialed.error().message().find("refused") != std::string::npos);
}

// A server with another key than the client's that answers anyway, with `after` in the same
// write right behind its answer (one read then takes both).
std::thread ForgingServer(int fd, std::string after) {
  return std::thread([fd, after] {
    Responder r(KeyOf(9));
    (void)!::write(fd, r.challenge().data(), r.challenge().size());
    char buf[512];
    ssize_t n = ::read(fd, buf, sizeof buf);
    (void)r.Take({buf, static_cast<size_t>(std::max<ssize_t>(n, 0))});  // EACCES here; answer anyway
    std::string forged = r.Accept(7, "x") + after;
    (void)!::write(fd, forged.data(), forged.size());
  });
}

TEST_CASE("a server with another key does not convince the client") {
  Pair p;
  std::thread server = ForgingServer(p.fd[0], "");
  auto dialed = Dial(p.fd[1], KeyOf(1), 3, "", 2000);
  server.join();
  REQUIRE(!dialed.has_value());
  CHECK(dialed.error().code() == EACCES);
}

TEST_CASE("a server without the key that sends more right after its answer is named for the key") {
  Pair p;
  std::thread server = ForgingServer(p.fd[0], "and a frame after it");
  auto dialed = Dial(p.fd[1], KeyOf(1), 3, "", 2000);
  server.join();
  REQUIRE(!dialed.has_value());
  CHECK(dialed.error().code() == EACCES);
  CHECK(dialed.error().message().find("cluster key") != std::string::npos);
}

TEST_CASE("a hello is good for one challenge only (no replay)") {
  Pair p;
  std::string hello;
  std::thread client([&] { (void)Dial(p.fd[1], KeyOf(1), 3, "p", 500); });
  Responder first(KeyOf(1));
  REQUIRE(::write(p.fd[0], first.challenge().data(), first.challenge().size()) > 0);
  char buf[512];
  ssize_t n = ::read(p.fd[0], buf, sizeof buf);
  REQUIRE(n > 0);
  hello.assign(buf, static_cast<size_t>(n));
  client.join();
  auto ok = first.Take(hello);
  REQUIRE(ok.has_value());
  REQUIRE(ok->has_value());
  Responder second(KeyOf(1));
  auto replayed = second.Take(hello);
  REQUIRE(!replayed.has_value());
  CHECK(replayed.error().code() == EACCES);
}

TEST_CASE("junk is refused as soon as it cannot be a hello, without waiting for more") {
  for (std::string junk : {std::string(17, '\0'), std::string(4096, '\xff'),
                           std::string("BBA1") + std::string(100, 'x'), std::string("GET / HTTP/1.0\r\n\r\n")}) {
    Responder r(KeyOf(1));
    auto got = r.Take(junk);
    INFO(junk.size());
    REQUIRE(!got.has_value());
    CHECK((got.error().code() == EPROTO || got.error().code() == EACCES));
  }
  Responder r(KeyOf(1));
  auto partial = r.Take("BB");
  REQUIRE(partial.has_value());
  CHECK(!partial->has_value());
  std::string huge = "BBA1" + std::string(kNonceBytes, 'n') + std::string(4, '\0') + std::string("\xff\xff\xff\x7f", 4);
  Responder big(KeyOf(1));
  auto too_long = big.Take(huge);
  REQUIRE(!too_long.has_value());
  CHECK(too_long.error().code() == EPROTO);
}

TEST_CASE("a server that says nothing fails the dial at its deadline") {
  Pair p;
  auto dialed = Dial(p.fd[1], KeyOf(1), 3, "", 100);
  REQUIRE(!dialed.has_value());
  CHECK(dialed.error().code() == ETIMEDOUT);
}

TEST_CASE("key files: made 0600, read back, and refused when others may read them or they are not a key") {
  TempDir dir;
  std::string path = dir.path + "/cluster.key";
  REQUIRE(CreateKey(path, false).ok());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto a = LoadKey(path);
  REQUIRE(a.has_value());
  CHECK(CreateKey(path, false).code() == EEXIST);
  auto b = LoadOrCreateKey(path);
  REQUIRE(b.has_value());
  CHECK(*a == *b);
  REQUIRE(CreateKey(path, true).ok());
  CHECK(*LoadKey(path) != *a);
  ::chmod(path.c_str(), 0644);
  auto open = LoadKey(path);
  REQUIRE(!open.has_value());
  CHECK(open.error().code() == EACCES);
  CHECK(open.error().message().find(path) != std::string::npos);
  std::string bad = dir.path + "/bad.key";
  std::ofstream(bad) << "not hex\n";
  ::chmod(bad.c_str(), 0600);
  CHECK(LoadKey(bad).error().code() == EINVAL);
  CHECK(LoadKey(dir.path + "/none").error().code() == ENOENT);
}

}  // namespace
}  // namespace bb::auth
