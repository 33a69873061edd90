// Fuzz target: the wire frame decoder and every NodeService operation's request decoder and
// server, as a peer's bytes reach them (the first two bytes pick the op, then a frame or a
// payload and a bulk part). Nothing a peer sends may crash the daemon or change a stored entry
// it did not name.
#include <cstdint>
#include <string_view>

#include "fs/core/node_service.h"
#include "fs/rpc/node_rpc.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"
#include "transport/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto meta = bb::fs::NewMemoryMetaStore();
  static auto chunks = bb::fs::NewMemoryChunkStore();
  static auto local = bb::fs::NewLocalNodeService(meta.get(), chunks.get(), {});
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)bb::transport::DecodeFrame(in);
  if (size < 3) return 0;
  uint16_t op = static_cast<uint16_t>(data[0] | data[1] << 8) % 24;
  size_t split = data[2] < size - 3 ? data[2] : size - 3;
  (void)bb::fs::ServeNodeRequest(*local, op, in.substr(3, split), in.substr(3 + split));
  return 0;
}
