// Fuzz target: the first bytes anyone may send a daemon's gate or the controller — the cluster
// key's handshake (fs/base/auth.h) — and the transport's frame decoder behind it. Fed whole and
// in pieces; a hello with the right MAC is built from the input too, so the admitted path runs.
#include <cstdint>
#include <string>

#include "fs/base/auth.h"
#include "transport/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  bb::auth::Key key{};
  key.fill(7);
  bb::auth::Responder whole(key);
  (void)whole.Take(in);
  bb::auth::Responder pieces(key);
  for (size_t at = 0; at < in.size(); at += 1 + at % 13) {
    auto got = pieces.Take(std::string_view(in).substr(at, 1 + at % 13));
    if (!got || *got) break;
  }
  (void)bb::transport::DecodeFrame(in);
  return 0;
}
