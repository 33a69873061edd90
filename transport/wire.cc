#include "transport/wire.h"

namespace bb::transport {

std::string EncodeFrame(Kind kind, uint16_t op, uint64_t id, int32_t status, std::string_view payload,
                        std::string_view session, uint32_t flags) {
  bool in_data = PayloadGoesInData(payload);
  Writer w;
  w.U32(kMagic).U8(kWireVersion).U8(static_cast<uint8_t>(kind)).U16(op).U64(id);
  w.U32(static_cast<uint32_t>(status)).U32(static_cast<uint32_t>(payload.size()));
  w.U32((in_data ? kPayloadInData : 0) | (flags & (kSessionUnknown | kServerBusy)));
  std::string out = w.Take();
  out.append(session.substr(0, kSessionBytes));
  out.append(kSessionBytes - std::min(session.size(), kSessionBytes), '\0');
  if (!in_data) out.append(payload);
  return out;
}

void SetFrameSession(std::string* frame, std::string_view session) {
  frame->replace(kFrameFixedBytes - kSessionBytes, kSessionBytes, session.substr(0, kSessionBytes));
}

Result<Frame> DecodeFrame(std::string_view bytes) {
  if (bytes.size() < kFrameFixedBytes) {
    return Status(EPROTO, "frame of " + std::to_string(bytes.size()) + " bytes is too short");
  }
  Reader r(bytes);
  if (r.U32() != kMagic) return Status(EPROTO, "frame has a bad magic number");
  uint8_t version = r.U8();
  if (version != kWireVersion) return Status(EPROTO, "frame has unknown version " + std::to_string(version));
  uint8_t kind = r.U8();
  if (kind != 1 && kind != 2) return Status(EPROTO, "frame has unknown kind " + std::to_string(kind));
  Frame f;
  f.kind = static_cast<Kind>(kind);
  f.op = r.U16();
  f.id = r.U64();
  f.status = static_cast<int32_t>(r.U32());
  uint32_t len = r.U32();
  uint32_t flags = r.U32();
  f.session = bytes.substr(kFrameFixedBytes - kSessionBytes, kSessionBytes);
  if (len > kMaxPayload) return Status(EPROTO, "frame payload of " + std::to_string(len) + " bytes is too large");
  if (flags & ~(kPayloadInData | kSessionUnknown | kServerBusy))
    return Status(EPROTO, "frame has unknown flags " + std::to_string(flags));
  f.payload_size = len;
  f.payload_in_data = flags & kPayloadInData;
  f.session_unknown = flags & kSessionUnknown;
  f.busy = flags & kServerBusy;
  size_t carried = bytes.size() - kFrameFixedBytes;
  if (f.payload_in_data ? carried != 0 : carried != len) {
    return Status(EPROTO, "frame says " + std::to_string(f.payload_in_data ? 0 : len) + " payload bytes but carries " +
                              std::to_string(carried));
  }
  f.payload = bytes.substr(kFrameFixedBytes);
  return f;
}

uint64_t Reader::Fixed(int n) {
  if (failed_ || in_.size() - pos_ < static_cast<size_t>(n)) {
    failed_ = true;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
  pos_ += static_cast<size_t>(n);
  return v;
}

Status Reader::Finish(std::string_view what) const {
  if (failed_) return Status(EPROTO, std::string(what) + ": message is truncated");
  if (pos_ != in_.size()) return Status(EPROTO, std::string(what) + ": message has trailing bytes");
  return Status::Ok();
}

}  // namespace bb::transport
