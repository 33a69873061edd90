// A test peer for the transport tests: serves a few operations over the real UCX transport.
//   transport_peer HOST PORT [KEY_BYTE [nodes]]   prints "port N" once listening, serves until
// killed. The cluster key is 32 bytes of KEY_BYTE (default 0x5a, the tests' key). It serves
// tools (callers without a node id) unless `nodes` is given; then only node 3 from 127.0.0.1 and
// node 4 from 127.0.0.9.
// op 1: echo payload and bulk; op 2: sleep <payload> ms, then reply; op 5: compute (no
// sleep, no system call) for <payload> ms, then reply; op 3: reply with a bulk
// part of <payload> bytes (byte i = i * 31 mod 256); op 4: reply with the caller's node id as the
// gate admitted it (a tool: auth::kNoId).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "transport/transport.h"

using namespace bb::transport;

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: transport_peer HOST PORT [KEY_BYTE [nodes]]\n");
    return 2;
  }
  ::signal(SIGPIPE, SIG_IGN);  // the tests stop reading stdout after the port line; warnings go there
  TransportOptions o;
  o.key.fill(static_cast<uint8_t>(argc > 3 ? std::stoi(argv[3], nullptr, 0) : 0x5a));
  bool nodes_only = argc > 4 && std::string(argv[4]) == "nodes";
  o.serve_tools = !nodes_only;
  o.listen_host = argv[1];
  o.listen_port = static_cast<uint16_t>(std::stoi(argv[2]));
  o.handler_threads = 8;
  auto t =
      StartUcxTransport(o, [](NodeId caller, uint16_t op, std::string_view payload, std::string_view bulk, ServedOn) {
        Response r;
        switch (op) {
          case 1:
            r.payload = std::string(payload);
            r.bulk = std::string(bulk);
            break;
          case 2:
            std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(std::string(payload))));
            r.payload = "slept";
            break;
          case 3: {
            size_t n = std::stoul(std::string(payload));
            r.bulk.resize(n);
            for (size_t i = 0; i < n; ++i) r.bulk[i] = static_cast<char>(i * 31);
            break;
          }
          case 4:
            r.payload = std::to_string(caller);
            break;
          case 5: {
            auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::stoi(std::string(payload)));
            volatile uint64_t x = 0;
            while (std::chrono::steady_clock::now() < until) x = x + 1;
            r.payload = "computed";
            break;
          }
          default:
            r.status = ENOSYS;
        }
        return r;
      });
  if (!t) {
    std::fprintf(stderr, "transport_peer: %s\n", t.error().ToString().c_str());
    return 1;
  }
  if (nodes_only) {
    (*t)->SetSelf(0);
    (*t)->SetPeer(3, "127.0.0.1", 1);
    (*t)->SetPeer(4, "127.0.0.9", 1);
  }
  std::printf("port %u\n", (*t)->port());
  std::fflush(stdout);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int sig;
  sigwait(&set, &sig);
  return 0;
}
