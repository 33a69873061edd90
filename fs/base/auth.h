// The cluster key and the handshake that proves a peer holds it
// (docs/architecture.md#the-cluster-trust-and-the-emulated-cluster).
//
// Every instance has a secret of kKeyBytes random bytes, kept as 64 hex digits in a file that
// only its owner may read (0600). Before anything else is served on a connection — between
// daemons, and from a daemon or bbctl to the controller — the two sides run a mutual
// challenge-response with HMAC-SHA-256 (libsodium) over fresh nonces from both sides:
//
//   1 server -> client  challenge  "BBA1" nonce_s[32]
//   2 client -> server  hello      "BBA1" nonce_c[32] u32 id  u32 n  payload[n]  mac_c[32]
//   3 server -> client  answer     "BBA1" u8 0  u32 id  u32 n  payload[n]  mac_s[32]
//                       or refusal "BBA1" u8 1  u32 n  reason[n]   (u8 2: not yet, ask again)
//   mac_c = HMAC(key, "bb hello"  nonce_s nonce_c id n payload)
//   mac_s = HMAC(key, "bb answer" nonce_s nonce_c id n payload)
// (integers little-endian; n <= kMaxPayload). `id` is the sender's node id (kNoId for a tool),
// the payloads carry what the connection needs next (the transport: a session token and a UCX
// worker address). A replayed hello fails (new nonce_s), and so does a replayed answer (new
// nonce_c). The key proves membership, not confidentiality: the bytes that follow travel in
// the clear, as every HPC interconnect's do.
//
// Thread-safety: pure functions, value types; Responder is one connection's state.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb::auth {

inline constexpr size_t kKeyBytes = 32;
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kMacBytes = 32;
inline constexpr uint32_t kMaxPayload = 4096;
inline constexpr uint32_t kNoId = 0xffffffffu;
inline constexpr size_t kChallengeBytes = 4 + kNonceBytes;

using Key = std::array<uint8_t, kKeyBytes>;
using Nonce = std::array<uint8_t, kNonceBytes>;

// Reads a key file. EACCES when others than its owner may read or write it, or it belongs to
// another user; EINVAL when it does not hold 64 hex digits; the errno of open otherwise. The
// message names the file.
Result<Key> LoadKey(const std::string& path);
// Writes a new random key to `path` (mode 0600, atomically: a reader never sees half a key).
// EEXIST when the file exists and `replace` is false.
Status CreateKey(const std::string& path, bool replace);
// The key in `path`, made first when there is none (several processes may race; one wins,
// every one gets its key).
Result<Key> LoadOrCreateKey(const std::string& path);
// `n` random bytes (libsodium's generator).
std::string RandomBytes(size_t n);

// What the other side proved: its node id and its payload.
struct Peer {
  uint32_t id = kNoId;
  std::string payload;
};

// The serving side of one handshake, fed with what arrives.
class Responder {
 public:
  explicit Responder(const Key& key);
  // The challenge to send first.
  const std::string& challenge() const { return challenge_; }
  // Appends bytes from the client. nullopt while its hello is incomplete; EPROTO when the
  // bytes are not a hello (or longer than one); EACCES when its MAC is wrong (another key).
  Result<std::optional<Peer>> Take(std::string_view bytes);
  // The answer that admits the client; `payload` at most kMaxPayload bytes.
  std::string Accept(uint32_t self_id, std::string_view payload) const;
  // The refusal, with a reason for the client's error message (not authenticated); `later`:
  // the server cannot admit the client yet, and it may ask again.
  static std::string Refuse(std::string_view reason, bool later = false);

 private:
  Key key_;
  std::string challenge_;
  std::string in_;
  Nonce nonce_c_{};
};

// The calling side, on a connected socket (blocking or not): reads the challenge, sends the
// hello, checks the answer, all within `timeout_ms`. ETIMEDOUT when the server says nothing in
// time; EACCES when it refuses (with its reason) or its answer does not prove the key; EAGAIN
// when it asks to be asked again later; EPROTO
// when it does not speak this handshake; EIO when the connection breaks.
Result<Peer> Dial(int fd, const Key& key, uint32_t self_id, std::string_view payload, int timeout_ms);

}  // namespace bb::auth
