// bb-tcp-fanout: what one round of small TCP messages to N peers costs on this machine, without
// any controller logic — the floor under the control cycle's enforce and collect phases.
//
// A child process accepts N loopback connections and answers each message with a reply of the
// same size on the same connection (as a daemon answers "collect"). The parent, per round:
//   send:       writes one message to each of the N connections (the enforce phase's syscalls);
//   round trip: writes one message to each and reads every reply (a collect phase).
// Prints CSV: peers, rounds, message bytes, mean send µs, mean round-trip µs; and on stderr
// the cost of the cheapest system call here (getppid in a loop), the unit all of it is made of.
//   bb-tcp-fanout [--peers 1,10,100,1000] [--rounds R] [--bytes B]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

void NoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// The child: accept `peers` connections, then echo every `bytes`-sized message until EOF.
int Echo(int listener, int peers, size_t bytes) {
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  for (int i = 0; i < peers; ++i) {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return 1;
    NoDelay(fd);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }
  std::vector<epoll_event> evs(1024);
  std::vector<char> buf(bytes);
  int open = peers;
  while (open > 0) {
    int n = ::epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 1000);
    for (int i = 0; i < n; ++i) {
      int fd = evs[static_cast<size_t>(i)].data.fd;
      if (!ReadAll(fd, buf.data(), bytes)) {
        ::close(fd);
        --open;
        continue;
      }
      if (buf[0] == 'R' && !WriteAll(fd, buf.data(), bytes)) return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-tcp-fanout: the cost of one small TCP message to each of N peers"};
  std::vector<int> peer_counts = {1, 10, 100, 1000};
  int rounds = 200;
  size_t bytes = 200;
  app.add_option("--peers", peer_counts, "peer counts to run")->delimiter(',');
  app.add_option("--rounds", rounds, "rounds per count");
  app.add_option("--bytes", bytes, "message size (the controller's messages are about 200 bytes)");
  CLI11_PARSE(app, argc, argv);
  if (bytes == 0) bytes = 1;
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
    lim.rlim_cur = lim.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &lim);
  }
  {
    constexpr int kCalls = 200000;
    auto t0 = Clock::now();
    for (int i = 0; i < kCalls; ++i) (void)::syscall(SYS_getppid);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / kCalls;
    std::fprintf(stderr, "bb-tcp-fanout: a system call (getppid) costs %.0f ns here\n", ns);
  }
  std::printf("peers,rounds,bytes,send_us_mean,round_trip_us_mean\n");
  for (int peers : peer_counts) {
    int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener, 4096) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      std::perror("bb-tcp-fanout: listen");
      return 1;
    }
    pid_t child = ::fork();
    if (child == 0) _exit(Echo(listener, peers, bytes));
    ::close(listener);
    std::vector<int> fds;
    for (int i = 0; i < peers; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        std::perror("bb-tcp-fanout: connect");
        return 1;
      }
      NoDelay(fd);
      fds.push_back(fd);
    }
    std::string send_msg(bytes, 'S'), req(bytes, 'R');
    std::vector<char> reply(bytes);
    double send_us = 0, rt_us = 0;
    for (int r = 0; r < rounds; ++r) {
      auto t0 = Clock::now();
      for (int fd : fds) WriteAll(fd, send_msg.data(), bytes);
      auto t1 = Clock::now();
      for (int fd : fds) WriteAll(fd, req.data(), bytes);
      for (int fd : fds) ReadAll(fd, reply.data(), bytes);
      auto t2 = Clock::now();
      send_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
      rt_us += std::chrono::duration<double, std::micro>(t2 - t1).count();
    }
    for (int fd : fds) ::close(fd);
    ::waitpid(child, nullptr, 0);
    std::printf("%d,%d,%zu,%.1f,%.1f\n", peers, rounds, bytes, send_us / rounds, rt_us / rounds);
    std::fflush(stdout);
  }
  return 0;
}
