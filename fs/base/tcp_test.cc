#include "fs/base/tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

namespace bb {
namespace {

// A listening socket on 127.0.0.1 and its port.
std::pair<int, uint16_t> Listener() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  REQUIRE(::listen(fd, 4) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return {fd, ntohs(a.sin_port)};
}

TEST_CASE("tcp: connect within a deadline, from a chosen address, and send it all", "[base]") {
  auto [srv, port] = Listener();
  auto fd = ConnectTcp("127.0.0.1", port, "127.0.0.1", 1000);
  REQUIRE(fd.has_value());
  int peer = ::accept(srv, nullptr, nullptr);
  REQUIRE(peer >= 0);
  sockaddr_in from{};
  socklen_t len = sizeof from;
  ::getpeername(peer, reinterpret_cast<sockaddr*>(&from), &len);
  CHECK(from.sin_addr.s_addr == htonl(INADDR_LOOPBACK));
  std::string big(1 << 20, 'x');  // more than a socket buffer: send waits for room
  REQUIRE(SendAll(*fd, "hello", 1000).ok());
  char buf[5];
  REQUIRE(::recv(peer, buf, 5, MSG_WAITALL) == 5);
  CHECK(std::string(buf, 5) == "hello");
  // Nobody reads: the send of a large message gives up at its deadline.
  Status stuck = SendAll(*fd, big + big + big + big + big + big + big + big, 200);
  CHECK(stuck.code() == ETIMEDOUT);
  ::close(*fd);
  ::close(peer);
  ::close(srv);
}

TEST_CASE("tcp: the errors name where", "[base]") {
  auto [srv, port] = Listener();
  ::close(srv);  // nothing listens there now
  auto refused = ConnectTcp("127.0.0.1", port, "", 1000);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code() == ECONNREFUSED);
  CHECK(refused.error().message().find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
  auto bad = ConnectTcp("not-an-address", 1, "", 1000);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().code() == EINVAL);
  auto bad_from = ConnectTcp("127.0.0.1", port, "nowhere", 1000);
  REQUIRE_FALSE(bad_from.has_value());
  CHECK(bad_from.error().code() == EINVAL);
}

}  // namespace
}  // namespace bb
