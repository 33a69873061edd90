// The transport over real UCX endpoints between two processes (this test and transport_peer).
#include "transport/transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

namespace bb::transport {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A transport_peer child process; killed (SIGKILL) when this object goes.
class Peer {
 public:
  explicit Peer(uint16_t port = 0, std::string key_byte = "0x5a", std::string mode = "tools")
      : key_(key_byte), mode_(mode) {
    Start(port);
  }
  ~Peer() { Kill(); }
  void Start(uint16_t port) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::execl(TRANSPORT_PEER, TRANSPORT_PEER, "127.0.0.1", std::to_string(port).c_str(), key_.c_str(), mode_.c_str(),
              nullptr);
      ::_exit(127);
    }
    ::close(fds[1]);
    FILE* f = ::fdopen(fds[0], "r");
    unsigned p = 0;
    int got = std::fscanf(f, "port %u", &p);
    std::fclose(f);
    REQUIRE(got == 1);
    port_ = static_cast<uint16_t>(p);
  }
  void Kill() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  std::string key_, mode_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

// The tests' cluster key (transport_peer's default).
auth::Key TestKey() {
  auth::Key k;
  k.fill(0x5a);
  return k;
}

std::unique_ptr<Transport> Client(std::chrono::microseconds poll_spin = TransportOptions{}.poll_spin,
                                  milliseconds deadline = milliseconds(3000)) {
  TransportOptions o;
  o.deadline = deadline;
  o.poll_spin = poll_spin;
  o.key = TestKey();
  auto t = StartUcxTransport(o, nullptr);
  REQUIRE(t.has_value());
  return std::move(*t);
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 31);
  return s;
}

TEST_CASE("request/reply and bulk data over UCX between two processes", "[transport]") {
  Peer peer;
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", peer.port());
  SECTION("small echo") {
    auto r = client->Call(1, 1, "hello", {}, {});
    REQUIRE(r.has_value());
    CHECK(r->status == 0);
    CHECK(r->payload == "hello");
    CHECK(r->bulk_size == 0);
  }
  SECTION("512 KiB out and back (rendezvous both ways)") {
    std::string out = Pattern(512 * 1024);
    std::string in(out.size(), 'x');
    auto r = client->Call(1, 1, "bulk", out, {in.data(), in.size()});
    REQUIRE(r.has_value());
    CHECK(r->bulk_size == out.size());
    CHECK(in == out);
  }
  SECTION("long payloads (past the header limit) with and without bulk, both ways") {
    std::string payload(20000, 'q');
    for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>('a' + i % 26);
    auto r = client->Call(1, 1, payload, {}, {});
    REQUIRE(r.has_value());
    CHECK(r->payload == payload);
    std::string out = Pattern(1 << 20);
    std::string in(out.size(), 'x');
    auto rb = client->Call(1, 1, payload, out, {in.data(), in.size()});
    REQUIRE(rb.has_value());
    CHECK(rb->payload == payload);
    CHECK(rb->bulk_size == out.size());
    CHECK(in == out);
  }
  SECTION("reply bulk straight into the caller's buffer; too small a buffer is EMSGSIZE") {
    std::string in(8 << 20, 'x');
    auto r = client->Call(1, 3, std::to_string(3 << 20), {}, {in.data(), in.size()});
    REQUIRE(r.has_value());
    REQUIRE(r->bulk_size == 3u << 20);
    CHECK(in.substr(0, 3 << 20) == Pattern(3 << 20));
    std::string small(100, 'x');
    auto e = client->Call(1, 3, "1000", {}, {small.data(), small.size()});
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().code() == EMSGSIZE);
  }
  SECTION("handler errors come back as the reply's status") {
    auto r = client->Call(1, 99, "", {}, {});
    REQUIRE(r.has_value());
    CHECK(r->status == ENOSYS);
  }
  SECTION("many outstanding calls from many threads") {
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int t = 0; t < 16; ++t) {
      threads.emplace_back([&, t] {
        std::mt19937 rng(t);
        for (int i = 0; i < 100; ++i) {
          std::string payload = std::to_string(t * 1000 + i);
          std::string out = Pattern(rng() % 200000);
          std::string in(out.size(), 'x');
          auto r = client->Call(1, 1, payload, out, {in.data(), in.size()});
          if (r && r->payload == payload && in == out) ok++;
        }
      });
    }
    for (auto& t : threads) t.join();
    CHECK(ok == 1600);
  }
}

TEST_CASE("deadlines, dead peers and reconnection", "[transport]") {
  auto client = Client();
  SECTION("a peer stuck in one long request gives ETIMEDOUT once it has served nothing for a liveness period") {
    // The liveness period is the client's default deadline; this call's own is shorter.
    auto quick = Client(TransportOptions{}.poll_spin, milliseconds(600));
    Peer peer;
    quick->SetPeer(1, "127.0.0.1", peer.port());
    auto start = Clock::now();
    auto r = quick->Call(1, 2, "4000", {}, {}, milliseconds(300));
    auto took = Clock::now() - start;
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == ETIMEDOUT);
    CHECK(took >= milliseconds(600));
    CHECK(took < milliseconds(2500));
    auto after = quick->Call(1, 1, "still", {}, {});
    REQUIRE(after.has_value());
    CHECK(after->payload == "still");
    client->SetPeer(1, "127.0.0.1", peer.port());
    auto again = client->Call(1, 1, "still", {}, {});
    REQUIRE(again.has_value());
    CHECK(again->payload == "still");
  }
  SECTION("a killed peer fails pending calls well before their deadline; a restarted one is reached again") {
    auto peer = std::make_unique<Peer>();
    uint16_t port = peer->port();
    client->SetPeer(1, "127.0.0.1", port);
    REQUIRE(client->Call(1, 1, "warm", {}, {}).has_value());
    std::thread killer([&] {
      std::this_thread::sleep_for(milliseconds(200));
      peer->Kill();
    });
    auto start = Clock::now();
    auto r = client->Call(1, 2, "20000", {}, {}, milliseconds(10000));
    auto took = Clock::now() - start;
    killer.join();
    REQUIRE_FALSE(r.has_value());
    CHECK((r.error().code() == EIO || r.error().code() == ETIMEDOUT));
    CHECK(took < milliseconds(8000));
    // Nothing listens now: calls fail, within their deadline.
    start = Clock::now();
    auto down = client->Call(1, 1, "x", {}, {}, milliseconds(1000));
    CHECK_FALSE(down.has_value());
    CHECK(Clock::now() - start < milliseconds(2500));
    // The peer comes back on the same port: the next calls reconnect.
    peer = std::make_unique<Peer>(port);
    bool back = false;
    for (int i = 0; i < 50 && !back; ++i) {
      auto r2 = client->Call(1, 1, "back", {}, {}, milliseconds(1000));
      back = r2.has_value() && r2->payload == "back";
      if (!back) std::this_thread::sleep_for(milliseconds(100));
    }
    CHECK(back);
  }
  SECTION("an unknown peer is EHOSTUNREACH") {
    auto r = client->Call(42, 1, "x", {}, {});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == EHOSTUNREACH);
  }
}

// Whether every thread of process `pid` is stopped (SIGSTOP takes effect on each thread when
// it next enters the kernel), within 5 s.
bool WaitStopped(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    bool all = true;
    for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
      std::ifstream in(t.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(in)), {});
      size_t paren = stat.rfind(')');
      if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'T') all = false;
    }
    if (all) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return false;
}

TEST_CASE("a peer alive and working through requests is waited for past the deadline, a stopped one is not",
          "[transport]") {
  auto client = Client(TransportOptions{}.poll_spin, milliseconds(600));
  Peer peer;
  client->SetPeer(1, "127.0.0.1", peer.port());
  // Other callers' requests keep finishing on the peer while one request takes three deadlines.
  std::atomic<bool> stop{false};
  std::thread traffic([&] {
    while (!stop) {
      (void)client->Call(1, 1, "tick", {}, {});
      std::this_thread::sleep_for(milliseconds(20));
    }
  });
  auto start = Clock::now();
  auto slow = client->Call(1, 2, "1800", {}, {});
  auto took = Clock::now() - start;
  stop = true;
  traffic.join();
  REQUIRE(slow.has_value());
  CHECK(slow->payload == "slept");
  CHECK(took >= milliseconds(1800));
  uint64_t extended = 0, failed = 0;
  for (const auto& c : client->Counters()) extended += c.calls_extended, failed += c.calls_failed;
  CHECK(extended >= 1);
  CHECK(failed == 0);
  // Stopped (alive as a process, answering nothing): the deadline holds, about once over.
  REQUIRE(::kill(peer.pid(), SIGSTOP) == 0);
  REQUIRE(WaitStopped(peer.pid()));  // a call made before every thread stopped may be answered
  start = Clock::now();
  auto stopped = client->Call(1, 1, "x", {}, {});
  took = Clock::now() - start;
  ::kill(peer.pid(), SIGCONT);
  REQUIRE_FALSE(stopped.has_value());
  CHECK(stopped.error().code() == ETIMEDOUT);
  CHECK(took < milliseconds(1500));
  auto back = client->Call(1, 1, "back", {}, {});
  REQUIRE(back.has_value());
  CHECK(back->payload == "back");
}

TEST_CASE("options that could never let a call start are refused", "[transport]") {
  TransportOptions o;
  o.max_large_in_flight = 0;
  auto t = StartUcxTransport(o, nullptr);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().code() == EINVAL);
  CHECK(t.error().message().find("max_large_in_flight") != std::string::npos);
}

TEST_CASE("garbage on the listening socket does not hurt the server", "[transport]") {
  Peer peer;
  std::mt19937 rng(3);
  for (int i = 0; i < 20; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(peer.port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      std::string junk(1 + rng() % 4096, '\0');
      for (auto& c : junk) c = static_cast<char>(rng());
      (void)!::write(fd, junk.data(), junk.size());
    }
    ::close(fd);
  }
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", peer.port());
  auto r = client->Call(1, 1, "alive", {}, {});
  INFO((r.has_value() ? std::string() : r.error().message()));
  REQUIRE(r.has_value());
  CHECK(r->payload == "alive");
}

// Every listening port of the process: the gate's and UCX's own (its TCP transport's).
std::vector<uint16_t> ListeningPorts(pid_t pid) {
  std::set<std::string> inodes;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(e.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::vector<uint16_t> ports;
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);
  while (std::getline(tcp, line)) {
    std::istringstream in(line);
    std::string sl, local, remote, state, queues, tr, retr, uid, timeout, inode;
    in >> sl >> local >> remote >> state >> queues >> tr >> retr >> uid >> timeout >> inode;
    if (state == "0A" && inodes.count(inode))
      ports.push_back(static_cast<uint16_t>(std::stoul(local.substr(9), nullptr, 16)));
  }
  return ports;
}

TEST_CASE("a few thousand junk connections to every listening port leave the server serving", "[transport]") {
  Peer peer;
  auto ports = ListeningPorts(peer.pid());
  REQUIRE(ports.size() >= 1);
  CHECK(std::find(ports.begin(), ports.end(), peer.port()) != ports.end());
  std::mt19937 rng(17);
  int sent = 0;
  for (uint16_t port : ports) {
    for (int i = 0; i < 1200; ++i) {
      std::string junk;
      switch (i % 6) {
        case 0:
          junk.assign(17, '\0');
          break;  // the payload that aborted UCX's connection manager
        case 1:
          junk.assign(1 + rng() % 4096, '\xff');
          break;
        case 2:
          junk.assign(1 + rng() % 4096, '\0');
          break;
        case 3: {  // a small little-endian length, then noise
          uint32_t len = rng() % 256;
          junk.assign(reinterpret_cast<char*>(&len), 4);
          junk.append(rng() % 300, static_cast<char>(rng()));
          break;
        }
        case 4:
          junk = "BBA1" + std::string(rng() % 200, static_cast<char>(rng()));
          break;  // the gate's magic
        default:
          junk.assign(1 + rng() % 2048, '\0');
          for (auto& c : junk) c = static_cast<char>(rng());
      }
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        sent += ::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL) > 0;
      }
      ::close(fd);
    }
  }
  CHECK(sent > 1000);
  REQUIRE(::kill(peer.pid(), 0) == 0);
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", peer.port());
  std::string out = Pattern(1 << 20), in(out.size(), 'x');
  auto r = client->Call(1, 1, "alive", out, {in.data(), in.size()});
  REQUIRE(r.has_value());
  CHECK(r->payload == "alive");
  CHECK(in == out);
}

TEST_CASE("a caller without the cluster key is refused, and a server without it is not believed", "[transport]") {
  Peer other_key(0, "0x33");
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", other_key.port());
  auto r = client->Call(1, 1, "let me in", {}, {});
  REQUIRE_FALSE(r.has_value());
  INFO(r.error().message());
  CHECK(r.error().code() == EACCES);
  CHECK(r.error().message().find("key") != std::string::npos);
  // The peer is still there for callers that hold its key.
  TransportOptions o;
  o.key.fill(0x33);
  auto keyed = StartUcxTransport(o, nullptr);
  REQUIRE(keyed.has_value());
  (*keyed)->SetPeer(1, "127.0.0.1", other_key.port());
  auto ok = (*keyed)->Call(1, 1, "member", {}, {});
  REQUIRE(ok.has_value());
  CHECK(ok->payload == "member");
}

TEST_CASE("a caller with the key speaks only as the node it connects from", "[transport]") {
  Peer nodes(0, "0x5a", "nodes");  // admits node 3 from 127.0.0.1 and node 4 from 127.0.0.9
  for (auto [id, admitted] : {std::pair{3u, true}, std::pair{4u, false}, std::pair{9u, false}}) {
    TransportOptions o;
    o.key = TestKey();
    auto t = StartUcxTransport(o, nullptr);
    REQUIRE(t.has_value());
    (*t)->SetSelf(id);
    (*t)->SetPeer(0, "127.0.0.1", nodes.port());
    auto r = (*t)->Call(0, 1, "as node " + std::to_string(id), {}, {});
    INFO("node " << id << ": " << (r.has_value() ? std::string("ok") : r.error().message()));
    CHECK(r.has_value() == admitted);
    // Node 4 claims an address that is not its own: refused. Node 9 is none the server knows:
    // it is told to ask again (a node still joining), until the call's deadline.
    if (!admitted) CHECK((r.error().code() == EACCES || (id == 9 && r.error().code() == ETIMEDOUT)));
    // The server's handler is told who called.
    if (admitted) {
      auto who = (*t)->Call(0, 4, "", {}, {});
      REQUIRE(who.has_value());
      CHECK(who->payload == std::to_string(id));
    }
  }
  auto tool = Client();  // no node id at all
  tool->SetPeer(0, "127.0.0.1", nodes.port());
  auto r = tool->Call(0, 1, "tool", {}, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code() == EACCES);
}

TEST_CASE("a server that is not the node the caller asked for is refused", "[transport]") {
  TransportOptions so;
  so.key = TestKey();
  so.serve_tools = true;
  so.listen_host = "127.0.0.1";
  auto server =
      StartUcxTransport(so, [](NodeId, uint16_t, std::string_view, std::string_view, ServedOn) { return Response{}; });
  REQUIRE(server.has_value());
  (*server)->SetSelf(5);
  auto client = Client();
  client->SetPeer(2, "127.0.0.1", (*server)->port());  // the hosts file says node 2 is there
  auto r = client->Call(2, 1, "x", {}, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code() == EACCES);
  CHECK(r.error().message().find("not node 2") != std::string::npos);
}

TEST_CASE("a server whose queue is full pushes back, and every call still succeeds", "[transport]") {
  TransportOptions so;
  so.key = TestKey();
  so.serve_tools = true;
  so.listen_host = "127.0.0.1";
  so.handler_threads = 1;
  so.max_queued = 2;
  std::atomic<int> served{0};
  auto server = StartUcxTransport(so, [&](NodeId, uint16_t, std::string_view payload, std::string_view, ServedOn) {
    std::this_thread::sleep_for(milliseconds(10));
    served++;
    return Response{0, std::string(payload), {}};
  });
  REQUIRE(server.has_value());
  auto client = Client(TransportOptions{}.poll_spin, milliseconds(300));  // far less than the queue takes
  client->SetPeer(1, "127.0.0.1", (*server)->port());
  std::atomic<int> ok{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 16; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        std::string big(100 << 10, static_cast<char>('a' + t));  // rendezvous: pushed back before it moves
        auto r = client->Call(1, 1, std::to_string(t * 10 + i), {big.data(), big.size()}, {});
        if (r && r->payload == std::to_string(t * 10 + i)) ok++;
      }
    });
  }
  for (auto& c : callers) c.join();
  CHECK(ok == 64);
  CHECK(served == 64);  // each once: a pushed back request is not served twice
  uint64_t pushed = 0, failed = 0;
  for (const auto& c : client->Counters()) pushed += c.calls_pushed_back, failed += c.calls_failed;
  CHECK(pushed > 0);
  CHECK(failed == 0);
}

TEST_CASE("ops served on the driving thread are answered on the progress thread, the others on handler threads",
          "[transport]") {
  std::mutex mu;
  std::map<uint16_t, std::set<std::thread::id>> threads;
  TransportOptions o;
  o.key = TestKey();
  o.serve_tools = true;
  o.listen_host = "127.0.0.1";
  o.handler_threads = 3;
  o.served_on = [](uint16_t op) { return op == 7 ? ServedOn::kDrivingThread : ServedOn::kHandlers; };
  auto server =
      StartUcxTransport(o, [&](NodeId, uint16_t op, std::string_view payload, std::string_view bulk, ServedOn) {
        std::lock_guard lock(mu);
        threads[op].insert(std::this_thread::get_id());
        return Response{0, std::string(payload) + "/" + std::to_string(op), std::string(bulk)};
      });
  REQUIRE(server.has_value());
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", (*server)->port());
  std::string big = Pattern(256 << 10);  // large enough to go by rendezvous
  std::vector<std::thread> callers;
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      std::string back(big.size(), '\0');
      for (int i = 0; i < 25; ++i) {
        uint16_t op = (i + t) % 2 ? 7 : 8;
        auto r = client->Call(1, op, "p", big, back);
        if (r && r->status == 0 && r->payload == "p/" + std::to_string(op) && r->bulk_size == big.size() &&
            std::string_view(back.data(), r->bulk_size) == big) {
          good++;
        }
      }
    });
  }
  for (auto& c : callers) c.join();
  CHECK(good == 100);
  std::lock_guard lock(mu);
  REQUIRE(threads[7].size() == 1);  // one progress thread
  CHECK_FALSE(threads[8].empty());
  CHECK_FALSE(threads[8].count(*threads[7].begin()));
}

TEST_CASE("ops served on their own thread are served while every handler thread waits for one of them", "[transport]") {
  // As an owner's handlers wait for the invalidations they sent: op 8 waits until an op 9 was
  // served, and both handler threads are taken by op 8s when the op 9 comes.
  std::mutex mu;
  std::condition_variable cv;
  bool released = false;
  int waiting = 0;
  std::thread::id own;
  std::set<std::thread::id> eights;
  TransportOptions o;
  o.key = TestKey();
  o.serve_tools = true;
  o.listen_host = "127.0.0.1";
  o.handler_threads = 2;
  o.max_queued = 1;  // the shared lane is full with one op 8 waiting: the op 9 is not pushed back
  o.served_on = [](uint16_t op) { return op == 9 ? ServedOn::kOwnThread : ServedOn::kHandlers; };
  auto server = StartUcxTransport(o, [&](NodeId, uint16_t op, std::string_view, std::string_view, ServedOn) {
    std::unique_lock lock(mu);
    if (op == 9) {
      released = true;
      own = std::this_thread::get_id();
      cv.notify_all();
      return Response{0, "served", {}};
    }
    waiting++;
    eights.insert(std::this_thread::get_id());
    cv.notify_all();
    bool ok = cv.wait_for(lock, std::chrono::seconds(3), [&] { return released; });
    return Response{ok ? 0 : ETIMEDOUT, {}, {}};
  });
  REQUIRE(server.has_value());
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", (*server)->port());
  std::vector<std::thread> blocked;
  std::atomic<int> good{0};
  auto call8 = [&] {
    auto r = client->Call(1, 8, "x", {}, {});
    if (r && r->status == 0) good++;
  };
  for (int t = 0; t < 2; ++t) blocked.emplace_back(call8);
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(5), [&] { return waiting == 2; }));
  }
  blocked.emplace_back(call8);  // queued: both handler threads wait
  std::this_thread::sleep_for(milliseconds(50));
  auto r = client->Call(1, 9, "x", {}, {});
  REQUIRE(r.has_value());
  CHECK(r->payload == "served");
  for (auto& t : blocked) t.join();
  CHECK(good == 3);  // released by the op 9, not by their 3 s
  std::lock_guard lock(mu);
  CHECK(waiting == 3);
  CHECK_FALSE(eights.count(own));  // a thread of its own
}

TEST_CASE("a request served on the progress thread that would wait is served again on a handler thread",
          "[transport]") {
  // Op 5 is served on the progress thread unless its payload says it would wait: then it answers
  // kServeOnHandlers, and a handler thread serves it (told so) with the same payload and bulk.
  std::mutex mu;
  std::vector<std::pair<ServedOn, std::string>> served;  // where, and what it saw
  TransportOptions o;
  o.key = TestKey();
  o.serve_tools = true;
  o.listen_host = "127.0.0.1";
  o.served_on = [](uint16_t op) { return op == 5 ? ServedOn::kDrivingThread : ServedOn::kHandlers; };
  auto server = StartUcxTransport(o, [&](NodeId, uint16_t, std::string_view payload, std::string_view bulk,
                                         ServedOn where) {
    {
      std::lock_guard lock(mu);
      served.emplace_back(where, std::string(payload) + "|" + std::string(bulk));
    }
    if (payload == "wait" && where == ServedOn::kDrivingThread) return Response{kServeOnHandlers, "not sent", {}};
    return Response{0, std::string(where == ServedOn::kDrivingThread ? "inline:" : "handler:") + std::string(bulk), {}};
  });
  REQUIRE(server.has_value());
  auto client = Client();
  client->SetPeer(1, "127.0.0.1", (*server)->port());
  std::string data = "bulk-bytes";
  auto quick = client->Call(1, 5, "quick", {data.data(), data.size()}, {});
  REQUIRE(quick.has_value());
  CHECK(quick->status == 0);
  CHECK(quick->payload == "inline:bulk-bytes");
  auto waits = client->Call(1, 5, "wait", {data.data(), data.size()}, {});
  REQUIRE(waits.has_value());
  CHECK(waits->status == 0);
  CHECK(waits->payload == "handler:bulk-bytes");
  std::lock_guard lock(mu);
  REQUIRE(served.size() == 3);
  CHECK(served[1] == std::make_pair(ServedOn::kDrivingThread, std::string("wait|bulk-bytes")));
  CHECK(served[2] == std::make_pair(ServedOn::kHandlers, std::string("wait|bulk-bytes")));
}

// Callers poll the worker themselves for small calls (TransportOptions::poll_spin); large
// calls, and replies slower than the poll, go through the progress thread. Every mix of the
// two must give each caller its own reply, whatever the poll time.
TEST_CASE("calls driven by their callers and by the progress thread, mixed", "[transport]") {
  auto poll_spin =
      GENERATE(std::chrono::microseconds(0), std::chrono::microseconds(50), std::chrono::microseconds(5000));
  CAPTURE(poll_spin.count());
  Peer peer;
  auto client = Client(poll_spin);
  client->SetPeer(1, "127.0.0.1", peer.port());
  std::atomic<int> small_ok{0}, big_ok{0}, slow_ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::string p = std::to_string(t) + "/" + std::to_string(i);
        auto r = client->Call(1, 1, p, {}, {});
        if (r && r->payload == p) small_ok++;
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      std::string out = Pattern(512 * 1024 + t);
      std::string in(out.size(), 'x');
      for (int i = 0; i < 20; ++i) {
        auto r = client->Call(1, 1, "big", out, {in.data(), in.size()});
        if (r && r->bulk_size == out.size() && in == out) big_ok++;
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto r = client->Call(1, 2, "7", {}, {});  // answered after 7 ms
        if (r && r->payload == "slept") slow_ok++;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(small_ok == 1200);
  CHECK(big_ok == 40);
  CHECK(slow_ok == 20);
}

// A daemon is client and server in one: while its own callers drive the worker (and its
// progress thread naps), requests from other nodes must still be answered.
TEST_CASE("a transport whose callers drive it keeps serving other nodes", "[transport]") {
  Peer peer;
  TransportOptions o;
  o.key = TestKey();
  o.serve_tools = true;
  o.listen_host = "127.0.0.1";
  o.deadline = milliseconds(3000);
  auto node = StartUcxTransport(o, [](NodeId, uint16_t, std::string_view payload, std::string_view, ServedOn) {
    return Response{0, "node:" + std::string(payload), {}};
  });
  REQUIRE(node.has_value());
  (*node)->SetPeer(1, "127.0.0.1", peer.port());
  std::atomic<bool> stop{false};
  std::atomic<int> own_ok{0}, own_calls{0};
  std::thread own([&] {
    while (!stop) {
      own_calls++;
      if (auto r = (*node)->Call(1, 1, "own", {}, {}); r && r->payload == "own") own_ok++;
    }
  });
  auto other = Client();
  other->SetPeer(7, "127.0.0.1", (*node)->port());
  int served = 0;
  for (int i = 0; i < 300; ++i) {
    auto r = other->Call(7, 1, std::to_string(i), {}, {});
    if (r && r->payload == "node:" + std::to_string(i)) served++;
  }
  stop = true;
  own.join();
  CHECK(served == 300);
  CHECK(own_ok == own_calls);
  CHECK(own_calls > 0);
}

// A node's transport as a daemon has it: listening on 127.0.0.1, proving node id `self`, and
// serving op 1 (echo) for the cluster's nodes.
std::unique_ptr<Transport> NodeTransport(NodeId self, milliseconds deadline = milliseconds(3000)) {
  TransportOptions o;
  o.key = TestKey();
  o.listen_host = "127.0.0.1";
  o.deadline = deadline;
  auto t = StartUcxTransport(o, [](NodeId caller, uint16_t, std::string_view payload, std::string_view, ServedOn) {
    return Response{0, std::to_string(caller) + ":" + std::string(payload), {}};
  });
  REQUIRE(t.has_value());
  (*t)->SetSelf(self);
  return std::move(*t);
}

TEST_CASE("a second claim of a live node's id is refused, and the node keeps its session", "[transport]") {
  auto server = NodeTransport(0);
  auto node1 = NodeTransport(1);
  server->SetPeer(1, "127.0.0.1", node1->port());
  node1->SetPeer(0, "127.0.0.1", server->port());
  REQUIRE(node1->Call(0, 1, "before", {}, {}).has_value());

  // Node 1's calls go on while a key holder on node 1's host claims to be node 1.
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, failed{0};
  std::atomic<int64_t> slowest_ms{0};
  std::thread calls([&] {
    while (!stop.load()) {
      auto start = Clock::now();
      auto r = node1->Call(0, 1, "x", {}, {});
      auto ms = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
      slowest_ms.store(std::max<int64_t>(slowest_ms.load(), ms));
      (r.has_value() && r->payload == "1:x" ? ok : failed)++;
    }
  });
  for (int i = 0; i < 3; ++i) {
    TransportOptions o;
    o.key = TestKey();
    o.deadline = milliseconds(2000);
    auto impostor = StartUcxTransport(o, nullptr);
    REQUIRE(impostor.has_value());
    (*impostor)->SetSelf(1);
    (*impostor)->SetPeer(0, "127.0.0.1", server->port());
    auto r = (*impostor)->Call(0, 1, "impostor", {}, {});
    INFO("claim " << i << ": " << (r.has_value() ? r->payload : r.error().message()));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == EACCES);
    CHECK(r.error().message().find("alive") != std::string::npos);
  }
  std::this_thread::sleep_for(milliseconds(300));
  stop = true;
  calls.join();
  INFO(ok.load() << " calls ok, " << failed.load() << " failed, the slowest " << slowest_ms.load() << " ms");
  CHECK(failed.load() == 0);
  CHECK(ok.load() > 10);
  CHECK(slowest_ms.load() < 1000);

  // Node 1 restarts (a new process at the same address): its new claim is the node, and admitted.
  uint16_t port = node1->port();
  node1.reset();
  TransportOptions o;
  o.key = TestKey();
  o.listen_host = "127.0.0.1";
  o.listen_port = port;
  auto again =
      StartUcxTransport(o, [](NodeId, uint16_t, std::string_view, std::string_view, ServedOn) { return Response{}; });
  REQUIRE(again.has_value());
  (*again)->SetSelf(1);
  (*again)->SetPeer(0, "127.0.0.1", server->port());
  auto start = Clock::now();
  auto r = (*again)->Call(0, 1, "restarted", {}, {});
  INFO((r.has_value() ? r->payload : r.error().message()));
  REQUIRE(r.has_value());
  CHECK(r->payload == "1:restarted");
  CHECK(Clock::now() - start < milliseconds(1500));
}

TEST_CASE("a node whose session another process took is told at once and refused as the node", "[transport]") {
  auto server = NodeTransport(0);
  auto old_node = NodeTransport(1);
  server->SetPeer(1, "127.0.0.1", old_node->port());
  old_node->SetPeer(0, "127.0.0.1", server->port());
  REQUIRE(old_node->Call(0, 1, "old", {}, {}).has_value());
  // The hosts file now says node 1 serves elsewhere, where a new process of node 1 runs.
  auto new_node = NodeTransport(1);
  server->SetPeer(1, "127.0.0.1", new_node->port());
  new_node->SetPeer(0, "127.0.0.1", server->port());
  auto r = new_node->Call(0, 1, "new", {}, {});
  INFO((r.has_value() ? r->payload : r.error().message()));
  REQUIRE(r.has_value());
  // The old process's next call is answered "unknown session"; it connects again at once, and
  // the gate, which asks node 1's address, refuses it: an answer, not a wait for a deadline.
  auto start = Clock::now();
  auto late = old_node->Call(0, 1, "old again", {}, {});
  auto took = Clock::now() - start;
  INFO((late.has_value() ? late->payload : late.error().message()));
  REQUIRE_FALSE(late.has_value());
  CHECK(late.error().code() == EACCES);
  CHECK(took < milliseconds(1500));
  CHECK(new_node->Call(0, 1, "still", {}, {}).has_value());
}

TEST_CASE("a peer whose handler computes past the deadline serves nothing else and is waited for", "[transport]") {
  // One request computes for three liveness periods; nothing else reaches the peer meanwhile,
  // so only what its handler is doing (running, in the kernel's eyes) shows it is alive.
  auto client = Client(TransportOptions{}.poll_spin, milliseconds(600));
  Peer peer;
  client->SetPeer(1, "127.0.0.1", peer.port());
  auto start = Clock::now();
  auto r = client->Call(1, 5, "2000", {}, {});
  auto took = Clock::now() - start;
  INFO((r.has_value() ? r->payload : r.error().message()));
  REQUIRE(r.has_value());
  CHECK(r->payload == "computed");
  CHECK(took >= milliseconds(2000));
  // One that sleeps as long is stuck, not busy: its deadline holds (see above).
  auto slept = client->Call(1, 2, "2000", {}, {});
  REQUIRE_FALSE(slept.has_value());
  CHECK(slept.error().code() == ETIMEDOUT);
}

}  // namespace
}  // namespace bb::transport
