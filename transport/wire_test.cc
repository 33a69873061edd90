#include "transport/wire.h"

#include <catch2/catch.hpp>
#include <random>

namespace bb::transport {
namespace {

TEST_CASE("frames round-trip", "[transport]") {
  std::string session = "0123456789abcdef";
  std::string bytes = EncodeFrame(Kind::kReply, 7, 0x1122334455667788ULL, -5, "payload", session, kSessionUnknown);
  auto f = DecodeFrame(bytes);
  REQUIRE(f.has_value());
  CHECK(f->session == session);
  CHECK(f->session_unknown);
  auto plain = DecodeFrame(EncodeFrame(Kind::kReply, 7, 1, 0, "x"));
  CHECK(plain->session == std::string(kSessionBytes, '\0'));
  CHECK_FALSE(plain->session_unknown);
  CHECK(f->kind == Kind::kReply);
  CHECK(f->op == 7);
  CHECK(f->id == 0x1122334455667788ULL);
  CHECK(f->status == -5);
  CHECK(f->payload == "payload");
}

TEST_CASE("long payloads leave the header and are flagged to lead the data", "[transport]") {
  std::string big(kInlinePayloadMax + 1, 'p');
  std::string header = EncodeFrame(Kind::kReply, 7, 1, 0, big);
  CHECK(header.size() == kFrameFixedBytes);
  auto f = DecodeFrame(header);
  REQUIRE(f.has_value());
  CHECK(f->payload_in_data);
  CHECK(f->payload_size == big.size());
  CHECK(f->payload.empty());
  std::string small(kInlinePayloadMax, 'p');
  std::string encoded = EncodeFrame(Kind::kReply, 7, 1, 0, small);
  auto g = DecodeFrame(encoded);
  REQUIRE(g.has_value());
  CHECK_FALSE(g->payload_in_data);
  CHECK(g->payload == small);
}

TEST_CASE("malformed frames are rejected with the reason", "[transport]") {
  std::string good = EncodeFrame(Kind::kRequest, 1, 2, 0, "abc");
  struct Row {
    std::string bytes;
    std::string want;
  };
  std::string bad_magic = good;
  bad_magic[0] ^= 1;
  std::string bad_version = good;
  bad_version[4] = kWireVersion + 1;
  std::string bad_kind = good;
  bad_kind[5] = 3;
  std::string huge = good;
  huge[20] = huge[21] = huge[22] = huge[23] = '\x7f';
  std::string bad_flags = good;
  bad_flags[24] = 8;
  const Row rows[] = {
      {"", "too short"},
      {good.substr(0, 10), "too short"},
      {bad_magic, "bad magic"},
      {bad_version, "unknown version " + std::to_string(kWireVersion + 1)},
      {bad_kind, "unknown kind 3"},
      {good.substr(0, good.size() - 1), "says 3 payload bytes but carries 2"},
      {good + "x", "says 3 payload bytes but carries 4"},
      {huge, "too large"},
      {bad_flags, "unknown flags 8"},
  };
  for (const Row& r : rows) {
    auto f = DecodeFrame(r.bytes);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error().code() == EPROTO);
    CHECK_THAT(f.error().message(), Catch::Contains(r.want));
  }
}

TEST_CASE("random bytes and mutated frames never crash the decoder", "[transport]") {
  std::mt19937_64 rng(7);
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes.resize(rng() % 64);
      for (auto& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = EncodeFrame(Kind::kRequest, static_cast<uint16_t>(rng()), rng(), 0, std::string(rng() % 32, 'p'));
      for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      if (rng() % 4 == 0) bytes.resize(rng() % (bytes.size() + 1));
    }
    auto f = DecodeFrame(bytes);
    if (f) {
      ++accepted;
      CHECK(f->payload.size() == bytes.size() - kFrameFixedBytes);
    }
  }
  CHECK(accepted > 0);  // some mutations hit only the op/id/payload bytes
}

TEST_CASE("payload reader stays in bounds", "[transport]") {
  std::string p = Writer().U8(1).U16(2).U32(3).U64(4).I64(-5).Str("six").Take();
  Reader r(p);
  CHECK(r.U8() == 1);
  CHECK(r.U16() == 2);
  CHECK(r.U32() == 3);
  CHECK(r.U64() == 4);
  CHECK(r.I64() == -5);
  CHECK(r.Str() == "six");
  CHECK(r.Finish("test").ok());
  std::string shortened = p.substr(0, p.size() - 1);
  Reader short_read(shortened);
  short_read.U8(), short_read.U16(), short_read.U32(), short_read.U64(), short_read.I64();
  CHECK(short_read.Str().empty());
  CHECK(short_read.Finish("test").code() == EPROTO);
  std::string lying = Writer().U32(1000).Take();  // claims a 1000-byte string
  Reader l(lying);
  CHECK(l.Str().empty());
  CHECK(l.failed());
  std::string longer = p + "x";
  Reader extra(longer);
  extra.U8(), extra.U16(), extra.U32(), extra.U64(), extra.I64(), (void)extra.Str();
  CHECK_THAT(extra.Finish("test").message(), Catch::Contains("trailing"));
}

}  // namespace
}  // namespace bb::transport
