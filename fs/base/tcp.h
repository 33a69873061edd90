// TCP plumbing with deadlines, for every link the project opens itself: the transport's gate
// (transport/gate.h), the controller link (qos/client.h) and the key handshake (auth.h).
//
// Thread-safety: pure functions of their arguments and the sockets they are given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb {

// A non-blocking TCP connection (TCP_NODELAY) to IPv4 `host`:`port` within `timeout_ms`, from
// `bind_host` when it is not empty (so that it comes from that address). EINVAL for an address
// that is not IPv4, ETIMEDOUT, or connect's errno; the message names where.
Result<int> ConnectTcp(const std::string& host, uint16_t port, const std::string& bind_host, int timeout_ms);

// Writes all of `data` to `fd` (blocking or not) within `timeout_ms`. ETIMEDOUT, or EIO with
// send's reason.
Status SendAll(int fd, std::string_view data, int timeout_ms);

// Milliseconds on the monotonic clock, for deadlines.
int64_t MonotonicMs();

}  // namespace bb
