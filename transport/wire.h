// The wire format of the transport, and bounded readers/writers for typed payloads.
//
// Every message is one UCX active message. Its AM header is:
//   u32 magic 0x50524242 ("BBRP")   u8 version (kWireVersion)  u8 kind (1 request, 2 reply)
//   u16 op                          u64 request id    i32 status (errno; 0 in requests)
//   u32 payload length              u32 flags (bit 0: the payload leads the AM data)
//   u8[16] session (the token the serving side gave this connection when its handshake proved
//          the cluster key, transport/gate.h; a reply carries its request's)
//   payload bytes, unless flag bit 0 (the operation's typed fields)
// (all little-endian). The AM data, when present, is the bulk part (chunk data), sent eagerly
// when small and by rendezvous when large. A payload over kInlinePayloadMax (a long directory
// page) travels at the front of the AM data instead, because UCX caps the header of a
// rendezvous message. Decoding checks every bound and rejects anything else without touching
// memory it was not given.
//
// Thread-safety: pure functions and value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fs/base/status.h"

namespace bb::transport {

inline constexpr uint32_t kMagic = 0x50524242;
inline constexpr uint8_t kWireVersion = 10;  // 10: invalidations tell where a moved file went
inline constexpr size_t kSessionBytes = 16;
inline constexpr size_t kFrameFixedBytes = 4 + 1 + 1 + 2 + 8 + 4 + 4 + 4 + kSessionBytes;
inline constexpr uint32_t kNoSender = 0xffffffffu;
inline constexpr uint32_t kMaxPayload = 1 << 20;
inline constexpr size_t kInlinePayloadMax = 2048;
inline constexpr uint32_t kPayloadInData = 1;
// In a reply: the serving side does not know the request's session (it never did, or has
// forgotten it); the caller connects again.
inline constexpr uint32_t kSessionUnknown = 2;
// In a reply: the serving side's queue is full and it did not take the request; the caller
// sends it again shortly (the node is alive: this is push-back, not failure).
inline constexpr uint32_t kServerBusy = 4;

enum class Kind : uint8_t { kRequest = 1, kReply = 2 };

// A request with this op is answered by the transport itself, on the serving side's progress
// thread and ahead of every queued request: the reply's payload is a u64, the requests that
// side has finished serving. A caller uses it to tell a node that is alive and working through
// a queue (patience) from one that is gone or stopped (its deadline).
inline constexpr uint16_t kPingOp = 0xffff;

struct Frame {
  Kind kind = Kind::kRequest;
  uint16_t op = 0;
  uint64_t id = 0;
  int32_t status = 0;
  uint32_t payload_size = 0;
  bool payload_in_data = false;  // then the first payload_size bytes of the AM data
  bool session_unknown = false;  // kSessionUnknown
  bool busy = false;             // kServerBusy
  std::string_view session;      // kSessionBytes; points into the decoded bytes
  std::string_view payload;      // inline payload; points into the decoded bytes
};

// The AM header for a message; a payload over kInlinePayloadMax is left out of it and flagged,
// and the sender puts it in front of the AM data.
// `session` is kSessionBytes long (or empty: zeros).
std::string EncodeFrame(Kind kind, uint16_t op, uint64_t id, int32_t status, std::string_view payload,
                        std::string_view session = {}, uint32_t flags = 0);
// Puts the connection's session token (kSessionBytes) into a frame EncodeFrame made.
void SetFrameSession(std::string* frame, std::string_view session);
inline bool PayloadGoesInData(std::string_view payload) { return payload.size() > kInlinePayloadMax; }
// EPROTO with what is wrong when `bytes` is not a well-formed frame.
Result<Frame> DecodeFrame(std::string_view bytes);

// Appends fixed-width little-endian fields and length-prefixed strings.
class Writer {
 public:
  Writer& U8(uint8_t v) { return Fixed(v, 1); }
  Writer& U16(uint16_t v) { return Fixed(v, 2); }
  Writer& U32(uint32_t v) { return Fixed(v, 4); }
  Writer& U64(uint64_t v) { return Fixed(v, 8); }
  Writer& I64(int64_t v) { return Fixed(static_cast<uint64_t>(v), 8); }
  Writer& Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
    return *this;
  }
  std::string Take() { return std::move(out_); }

 private:
  Writer& Fixed(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  std::string out_;
};

// Reads what Writer wrote. A read past the end sets failed() and yields zeros/empty strings;
// callers check Finish() once at the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  uint8_t U8() { return static_cast<uint8_t>(Fixed(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Fixed(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Fixed(4)); }
  uint64_t U64() { return Fixed(8); }
  int64_t I64() { return static_cast<int64_t>(Fixed(8)); }
  std::string Str() {
    uint32_t n = U32();
    if (failed_ || in_.size() - pos_ < n) {
      failed_ = true;
      return {};
    }
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  bool failed() const { return failed_; }
  // Bytes not read yet.
  size_t remaining() const { return in_.size() - pos_; }
  // Marks the input as malformed (a count it cannot hold, say): Finish then fails.
  void Fail() { failed_ = true; }
  // OK when every read stayed in bounds and nothing is left over; EPROTO otherwise.
  Status Finish(std::string_view what) const;

 private:
  uint64_t Fixed(int n);
  std::string_view in_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace bb::transport
