#include "fs/base/tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace bb {
namespace {

bool Ipv4(const std::string& host, uint16_t port, sockaddr_in* a) {
  *a = sockaddr_in{};
  a->sin_family = AF_INET;
  a->sin_port = htons(port);
  return ::inet_pton(AF_INET, host.c_str(), &a->sin_addr) == 1;
}

}  // namespace

int64_t MonotonicMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result<int> ConnectTcp(const std::string& host, uint16_t port, const std::string& bind_host, int timeout_ms) {
  std::string where = host + ":" + std::to_string(port);
  sockaddr_in to{}, from{};
  if (!Ipv4(host, port, &to)) return Status(EINVAL, where + ": not an IPv4 address");
  if (!bind_host.empty() && !Ipv4(bind_host, 0, &from)) return Status(EINVAL, bind_host + ": not an IPv4 address");
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status(errno, "connect to " + where + ": " + std::strerror(errno));
  auto fail = [&](int err, const std::string& why) {
    ::close(fd);
    return Status(err, "connect to " + where + ": " + why);
  };
  if (!bind_host.empty() && ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
    return fail(errno, "bind to " + bind_host + ": " + std::strerror(errno));
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
    return fail(errno, std::strerror(errno));
  }
  pollfd p{fd, POLLOUT, 0};
  int ready = ::poll(&p, 1, timeout_ms);
  if (ready != 1) return fail(ready == 0 ? ETIMEDOUT : errno, ready == 0 ? "no answer in time" : std::strerror(errno));
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    return fail(err ? err : errno, std::strerror(err ? err : errno));
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

Status SendAll(int fd, std::string_view data, int timeout_ms) {
  int64_t deadline = MonotonicMs() + timeout_ms;
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) return Status(EIO, std::strerror(errno));
    int64_t left = deadline - MonotonicMs();
    pollfd p{fd, POLLOUT, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 100))) < 0) {
      if (left <= 0) return Status(ETIMEDOUT, "could not send in time");
      return Status(EIO, std::strerror(errno));
    }
  }
  return Status::Ok();
}

}  // namespace bb
