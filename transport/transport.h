// Transport: request/reply RPC between daemons over UCX (ucp active messages).
//
// A daemon is server and client in one: it listens on an address (ip:port) where callers prove
// the cluster key before they may connect to its UCX worker (transport/gate.h), serves requests
// with a Handler on a pool of handler threads, and calls peers by node id. Small parts of a
// message travel in the AM header (see wire.h); the bulk part (chunk data) travels as AM data,
// by rendezvous when large, straight into the caller's buffer on replies.
//
// Every call has a deadline: a call to a dead or unreachable peer fails with ETIMEDOUT or EIO
// within it; an endpoint error fails that peer's pending calls at once; the next call to that
// peer connects again. A request for the local node must never come here (the caller makes a
// direct call instead).
//
// Thread-safety: Call and SetPeer may be used from any number of threads. One thread at a time
// drives UCX: the progress thread, or a caller that polls the worker itself while its reply is
// due (see TransportOptions::poll_spin); other callers hand their work over and wait.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fs/base/auth.h"
#include "fs/base/status.h"

namespace bb::transport {

using NodeId = uint32_t;

// What a handler answers: an errno (0 = OK), a typed payload and an optional bulk part.
struct Response {
  int status = 0;
  std::string payload;
  std::string bulk;
};

// The status a handler serving on the progress thread (ServedOn::kDrivingThread) answers when
// the request would have to wait (for another node, or a lock): the request is then served
// again, from the start, on the handler threads, and nothing of this answer goes out. It must
// have changed nothing. Any other handler that answers it answers EIO.
inline constexpr int kServeOnHandlers = -1;

// Where a request is served (TransportOptions::served_on), decided once as it arrives.
enum class ServedOn {
  // The handler threads, which may block (disk I/O, calls to other nodes).
  kHandlers,
  // The progress thread itself, which saves the two thread hand-offs (to a handler thread and
  // back) of every other request. Only for handlers that never wait long — every other message
  // of this node waits meanwhile.
  kDrivingThread,
  // A handler thread of its own, never queued behind the others: for handlers that call no
  // other node and that other nodes' handlers wait for (an invalidation, which the owner of a
  // changed path waits for while it holds one of its handler threads: two nodes whose handlers
  // all wait for each other would otherwise wait for their deadlines).
  kOwnThread,
};

// Serves one request (op, payload, bulk) from `caller`: the node id the caller proved at its
// gate (auth::kNoId for a tool). Runs where `where` says: on a handler thread, where it may block
// on disk I/O, or for the ops TransportOptions::served_on puts there on the progress thread
// (which may send it on to the handler threads: kServeOnHandlers).
using Handler = std::function<Response(NodeId caller, uint16_t op, std::string_view payload, std::string_view bulk,
                                       ServedOn where)>;

struct TransportOptions {
  std::string listen_host;   // IPv4 address to serve on; empty = client only
  uint16_t listen_port = 0;  // 0 = pick a free port (see Transport::port())
  // The instance's cluster key: every connection, both ways, proves it (transport/gate.h).
  auth::Key key{};
  // Serve callers that hold the key but are no node of the cluster (benchmarks, tests). A
  // daemon serves only its cluster's nodes, each from the address it serves on.
  bool serve_tools = false;
  std::chrono::milliseconds deadline{5000};  // default deadline of a call
  std::chrono::milliseconds liveness{0};     // transport/liveness.h's period (0: the deadline)
  size_t handler_threads = 4;
  // Requests waiting for a handler thread, at most; past it the server pushes back (the caller
  // sends the request again after a short wait, and its deadline waits while this side
  // answers), so an overloaded node's memory stays bounded and nothing fails for being slow.
  size_t max_queued = 4096;
  size_t max_bulk = 64 << 20;  // larger bulk parts are refused
  // Calls carrying 64 KiB or more that may be in flight at once; more callers wait for a slot.
  size_t max_large_in_flight = 16;
  // Where each op is served. Empty: every op on the handler threads.
  std::function<ServedOn(uint16_t op)> served_on;
  // How long a thread keeps polling UCX for events before it sleeps: the progress thread after
  // its last event, and a caller that drives the worker itself while its reply is due (no hand-
  // off to the progress thread and back). Trades a core's time for the latency of two to four
  // thread wake-ups per call. 0: never poll, always hand off and sleep.
  std::chrono::microseconds poll_spin{50};
};

// Upper bounds of the call latency histogram's buckets, in seconds (the last bucket: longer).
inline constexpr std::array<double, 15> kLatencyBounds = {50e-6, 100e-6, 250e-6, 500e-6, 1e-3,   2.5e-3, 5e-3, 10e-3,
                                                          25e-3, 50e-3,  100e-3, 250e-3, 500e-3, 1.0,    5.0};

// What went between this transport and one peer since it started.
struct PeerCounters {
  NodeId peer = 0;
  uint64_t calls_sent = 0;         // requests this side sent to the peer
  uint64_t calls_failed = 0;       // of those, failed by the transport (timeout, broken link)
  uint64_t calls_extended = 0;     // deadlines passed while the peer answered pings and made progress
  uint64_t calls_pushed_back = 0;  // times the peer's queue was full and a call was sent again
  uint64_t bytes_sent = 0;         // request payload and bulk bytes
  uint64_t bytes_received = 0;     // reply payload and bulk bytes
  uint64_t requests_received = 0;  // requests the peer sent to this side
  uint64_t request_bytes_received = 0;
  // Calls sent, by latency (from the call to its reply or failure): latency[i] counts those
  // within kLatencyBounds[i] and above the bound before; the last, those above every bound.
  std::array<uint64_t, kLatencyBounds.size() + 1> latency{};
  double latency_seconds = 0;  // their sum
};

// The reply of a call. `bulk_size` bytes of the reply's bulk part were placed in the caller's
// `bulk_in` buffer.
struct CallResult {
  int status = 0;
  std::string payload;
  size_t bulk_size = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // This side's node id, which it proves when it connects to a peer (until set: none, and only
  // peers with serve_tools admit it). Set it before the first call.
  virtual void SetSelf(NodeId id) = 0;

  // Where node `id` serves (replaces an earlier address; the next call reconnects). Node `id`
  // is admitted as a caller only from that host.
  virtual void SetPeer(NodeId id, const std::string& host, uint16_t port) = 0;

  // Sends a request and waits for its reply until `deadline` (0 = the default). A deadline
  // that passes while the peer is alive and working is extended: from half the deadline on, the
  // caller's side pings the peer (kPingOp), and the call waits another deadline as long as the
  // peer answered within the last deadline and finished some request since the previous answer.
  // Errors: ETIMEDOUT when no reply came in time from a peer that stopped answering pings or
  // finishing requests; EIO when the connection failed or broke; EACCES when the peer refused
  // this side's key or node id, or did not prove the key itself;
  // EHOSTUNREACH for an unknown peer; EMSGSIZE when the reply's bulk does not fit `bulk_in`.
  // `bulk_out` and `bulk_in` must stay valid until Call returns.
  virtual Result<CallResult> Call(NodeId peer, uint16_t op, std::string_view payload, std::span<const char> bulk_out,
                                  std::span<char> bulk_in, std::chrono::milliseconds deadline = {}) = 0;

  // The port the server listens on (after binding port 0), or 0 for a client-only transport.
  virtual uint16_t port() const = 0;

  // Counters per peer, in peer order (requests from senders without an id are not counted).
  virtual std::vector<PeerCounters> Counters() const = 0;
};

// Starts UCX (context, worker, progress thread) and, when listen_host is set, a listener.
// `handler` may be empty for a client-only transport. EIO with UCX's message on failure.
Result<std::unique_ptr<Transport>> StartUcxTransport(const TransportOptions& options, Handler handler);

}  // namespace bb::transport
