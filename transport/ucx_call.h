// Private to transport/: one call in flight on the calling side (ucx_client.h says when it is
// finished for its caller), shared by the client and its liveness pings.
#pragma once

#include <ucp/api/ucp.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <span>
#include <string>

#include "transport/ucx_client.h"

namespace bb::transport::ucx {

struct PendingCall {
  Client* owner = nullptr;
  uint64_t id = 0;
  NodeId peer = 0;
  std::atomic<int64_t> deadline_ns{0};  // moved on by the driving thread while the peer is alive
  int64_t start_ns = 0;
  int64_t patience_ns = 0;  // the call's own deadline, the step it is moved on by
  uint16_t op = 0;
  bool ping = false;      // the transport's own liveness ping: nobody waits for it
  bool reported = false;  // logged as late (driving thread only)
  bool extended = false;  // its peer was judged alive at its last deadline (Client::extended_)
  int waited_on = 0;      // extensions granted because its peer waited on other nodes
  std::string frame;      // AM header (its session set when sent); UCX reads it until the send completes
  std::string data;       // payload + bulk_out, when the payload is too long for the header
  std::span<const char> bulk_out;
  std::span<char> bulk_in;
  // Driving thread only.
  bool decided = false;
  bool send_inflight = false;
  bool resent = false;        // sent again after the peer did not know its session
  int64_t retry_at_ns = 0;    // send again at this time (0: not): pushed back, or its session was unknown
  int pushed_back = 0;        // how often
  void* recv_req = nullptr;   // rendezvous receive into bulk_in, while in flight
  uint32_t reply_prefix = 0;  // payload bytes leading the reply's data
  std::string scratch;        // rendezvous target when the reply's data starts with payload
  ucp_ep_h ep = nullptr;
  std::string session;  // of the connection it went out on; its reply must carry it
  // Handed to the caller.
  std::mutex mu;  // guards the three fields below
  std::condition_variable cv;
  std::atomic<bool> finished{false};  // set under mu (for cv); a driving caller polls it
  Status status;
  CallResult result;
};

}  // namespace bb::transport::ucx
