#include "fs/base/auth.h"

#include <fcntl.h>
#include <poll.h>
#include <sodium.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>

#include "fs/base/tcp.h"

namespace bb::auth {
namespace {

constexpr std::string_view kMagic = "BBA1";
constexpr size_t kHelloFixed = 4 + kNonceBytes + 4 + 4;  // before the payload
constexpr size_t kAnswerFixed = 4 + 1 + 4 + 4;
constexpr uint32_t kMaxReason = 512;

bool SodiumReady() {
  static const bool ready = sodium_init() >= 0;
  return ready;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(std::string_view in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

std::string Mac(const Key& key, std::string_view label, std::string_view nonce_s, std::string_view nonce_c,
                std::string_view body) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key.data(), key.size());
  for (std::string_view part : {label, nonce_s, nonce_c, body}) {
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()), part.size());
  }
  std::string mac(kMacBytes, '\0');
  crypto_auth_hmacsha256_final(&st, reinterpret_cast<unsigned char*>(mac.data()));
  return mac;
}

bool SameMac(std::string_view a, std::string_view b) {
  return a.size() == b.size() && sodium_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view View(const Nonce& n) { return {reinterpret_cast<const char*>(n.data()), n.size()}; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads until `done(in)` says the message is whole, within the deadline.
Status ReadUntil(int fd, std::string* in, int64_t deadline, const std::function<Result<bool>(std::string_view)>& done) {
  for (;;) {
    BB_ASSIGN_OR_RETURN(bool whole, done(*in));
    if (whole) return Status::Ok();
    int64_t left = deadline - MonotonicMs();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) == 0) return Status(ETIMEDOUT, "no answer in time");
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return Status(EIO, n == 0 ? "the connection was closed" : std::strerror(errno));
    in->append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (!SodiumReady()) std::abort();  // no random source at all: nothing here can be trusted
  randombytes_buf(out.data(), n);
  return out;
}

Result<Key> LoadKey(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status(errno, "cluster key " + path + ": " + std::strerror(errno));
  struct stat st {};
  char text[130];
  ssize_t n = ::fstat(fd, &st) == 0 ? ::read(fd, text, sizeof text) : -1;
  ::close(fd);
  if (n < 0) return Status(EIO, "cluster key " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status(EACCES, "cluster key " + path + " must be a regular file of this user with mode 0600 (it has " +
                              mode + ", owner uid " + std::to_string(st.st_uid) + ")");
  }
  std::string_view hex(text, static_cast<size_t>(n));
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) hex.remove_suffix(1);
  Key key{};
  bool ok = hex.size() == 2 * kKeyBytes;
  for (size_t i = 0; ok && i < kKeyBytes; ++i) {
    int hi = HexDigit(hex[2 * i]), lo = HexDigit(hex[2 * i + 1]);
    ok = hi >= 0 && lo >= 0;
    key[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  if (!ok) return Status(EINVAL, "cluster key " + path + " must hold 64 hex digits");
  return key;
}

Status CreateKey(const std::string& path, bool replace) {
  std::string raw = RandomBytes(kKeyBytes), hex;
  static const char* digits = "0123456789abcdef";
  for (unsigned char c : raw) hex += {digits[c >> 4], digits[c & 15]};
  hex += '\n';
  std::string tmp = path + ".new." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status(errno, "cluster key " + path + ": cannot create " + tmp + ": " + std::strerror(errno));
  bool written = ::write(fd, hex.data(), hex.size()) == static_cast<ssize_t>(hex.size()) && ::fsync(fd) == 0;
  ::close(fd);
  int rc = !written ? -1 : replace ? ::rename(tmp.c_str(), path.c_str()) : ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) return Status(written ? err : EIO, "cluster key " + path + ": " + std::strerror(written ? err : EIO));
  return Status::Ok();
}

Result<Key> LoadOrCreateKey(const std::string& path) {
  Status made = CreateKey(path, /*replace=*/false);
  if (!made.ok() && made.code() != EEXIST) return made;
  return LoadKey(path);
}

Responder::Responder(const Key& key) : key_(key) { challenge_ = std::string(kMagic) + RandomBytes(kNonceBytes); }

Result<std::optional<Peer>> Responder::Take(std::string_view bytes) {
  if (in_.size() + bytes.size() > kHelloFixed + kMaxPayload + kMacBytes) {
    return Status(EPROTO, "a hello longer than any hello");
  }
  in_.append(bytes);
  if (in_.compare(0, std::min(in_.size(), kMagic.size()), kMagic.substr(0, std::min(in_.size(), kMagic.size()))) != 0) {
    return Status(EPROTO, "not a burst buffer handshake");
  }
  if (in_.size() < kHelloFixed) return std::optional<Peer>();
  uint32_t n = GetU32(in_, kHelloFixed - 4);
  if (n > kMaxPayload) return Status(EPROTO, "a hello payload of " + std::to_string(n) + " bytes");
  if (in_.size() < kHelloFixed + n + kMacBytes) return std::optional<Peer>();
  if (in_.size() > kHelloFixed + n + kMacBytes) return Status(EPROTO, "bytes after the hello");
  std::string_view all(in_);
  std::memcpy(nonce_c_.data(), all.data() + 4, kNonceBytes);
  std::string_view body = all.substr(4 + kNonceBytes, 8 + n);
  std::string want = Mac(key_, "bb hello", std::string_view(challenge_).substr(4), View(nonce_c_), body);
  if (!SameMac(want, all.substr(kHelloFixed + n))) return Status(EACCES, "the peer does not hold the cluster key");
  return std::optional<Peer>(Peer{GetU32(all, 4 + kNonceBytes), std::string(all.substr(kHelloFixed, n))});
}

std::string Responder::Accept(uint32_t self_id, std::string_view payload) const {
  std::string body;
  PutU32(&body, self_id);
  PutU32(&body, static_cast<uint32_t>(payload.size()));
  body.append(payload);
  std::string out = std::string(kMagic) + '\0' + body;
  return out + Mac(key_, "bb answer", std::string_view(challenge_).substr(4), View(nonce_c_), body);
}

std::string Responder::Refuse(std::string_view reason, bool later) {
  reason = reason.substr(0, kMaxReason);
  std::string out = std::string(kMagic) + (later ? '\2' : '\1');
  PutU32(&out, static_cast<uint32_t>(reason.size()));
  return out.append(reason);
}

Result<Peer> Dial(int fd, const Key& key, uint32_t self_id, std::string_view payload, int timeout_ms) {
  if (payload.size() > kMaxPayload) return Status(EINVAL, "handshake payload too long");
  int64_t deadline = MonotonicMs() + timeout_ms;
  std::string in;
  auto whole = [](size_t n) { return [n](std::string_view s) -> Result<bool> { return s.size() >= n; }; };
  BB_RETURN_IF_ERROR(ReadUntil(fd, &in, deadline, whole(kChallengeBytes)).Annotate("handshake"));
  if (in.compare(0, 4, kMagic) != 0 || in.size() > kChallengeBytes) {
    return Status(EPROTO, "the peer does not speak the burst buffer's handshake");
  }
  std::string nonce_s = in.substr(4), nonce_c = RandomBytes(kNonceBytes), body;
  PutU32(&body, self_id);
  PutU32(&body, static_cast<uint32_t>(payload.size()));
  body.append(payload);
  std::string hello = std::string(kMagic) + nonce_c + body + Mac(key, "bb hello", nonce_s, nonce_c, body);
  int left = static_cast<int>(std::max<int64_t>(deadline - MonotonicMs(), 1));
  BB_RETURN_IF_ERROR(SendAll(fd, hello, left).Annotate("handshake"));
  in.clear();
  BB_RETURN_IF_ERROR(ReadUntil(fd, &in, deadline, [](std::string_view s) -> Result<bool> {
                       if (s.size() >= 5 && (s.compare(0, 4, kMagic) != 0 || static_cast<uint8_t>(s[4]) > 2)) {
                         return Status(EPROTO, "the peer's answer is not a handshake answer");
                       }
                       if (s.size() < 9) return false;
                       uint32_t n = GetU32(s, 5);
                       if (s[4] != 0) return n <= kMaxReason && s.size() >= 9 + n;
                       if (s.size() < kAnswerFixed) return false;
                       uint32_t m = GetU32(s, 9);
                       if (m > kMaxPayload) return Status(EPROTO, "the peer's answer is too long");
                       return s.size() >= kAnswerFixed + m + kMacBytes;
                     }).Annotate("handshake"));
  if (in[4] != 0) return Status(in[4] == 2 ? EAGAIN : EACCES, "refused: " + in.substr(9, GetU32(in, 5)));
  uint32_t m = GetU32(in, 9);
  std::string_view all(in);
  // The key first: an impostor's answer followed at once by more bytes (which one read may
  // take together) is named for what it is, not for the bytes after it.
  std::string_view answer_body = all.substr(5, 8 + m);
  if (!SameMac(Mac(key, "bb answer", nonce_s, nonce_c, answer_body), all.substr(kAnswerFixed + m, kMacBytes))) {
    return Status(EACCES, "the peer does not hold the cluster key");
  }
  if (all.size() != kAnswerFixed + m + kMacBytes) return Status(EPROTO, "bytes after the handshake answer");
  return Peer{GetU32(all, 5), std::string(all.substr(kAnswerFixed, m))};
}

}  // namespace bb::auth
