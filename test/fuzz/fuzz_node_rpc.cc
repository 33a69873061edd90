// Fuzz target: the wire frame decoder and every NodeService operation's request decoder and
// server, as a peer's bytes reach them (the first byte picks the op, the second the bare store
// or a view as a peer, the third where the payload ends and the bulk part begins). Nothing a peer sends may crash the
// daemon or change a stored entry it did not name.
#include <cstdint>
#include <string_view>

#include "fs/core/coherence/coherence.h"
#include "fs/core/coherence/coherent_view.h"
#include "fs/core/service/node_service.h"
#include "fs/rpc/node_rpc.h"
#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"
#include "transport/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto meta = bb::fs::NewMemoryMetaStore();
  static auto chunks = bb::fs::NewMemoryChunkStore();
  static auto local = bb::fs::NewLocalNodeService(meta.get(), chunks.get(), {});
  // As a daemon serves its peers: through a view as the caller, whose names reserved for it
  // (and for a node that cannot be reached, which settling then frees) are settled first.
  static bb::ManualClock clock;
  static bb::fs::Coherence coherence(bb::fs::NodeView{3, 0}, 1'000'000'000, &clock,
                                     [](bb::fs::NodeId) -> bb::fs::NodeService* { return nullptr; });
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)bb::transport::DecodeFrame(in);
  if (size < 3) return 0;
  constexpr int kOps = static_cast<int>(bb::fs::NodeOp::kHeldLocks) + 2;  // an unknown op too
  uint16_t op = static_cast<uint16_t>(data[0] % kOps);
  size_t split = data[2] < size - 3 ? data[2] : size - 3;
  // The second byte picks the bare store or a view as node 1 or 2, on a handler thread or not.
  uint16_t view = static_cast<uint16_t>(data[1] >> 6);
  std::string_view payload = in.substr(3, split), bulk = in.substr(3 + split);
  if (view == 0) {
    (void)bb::fs::ServeNodeRequest(*local, op, payload, bulk);
  } else {
    bb::fs::CoherentView as(local.get(), &coherence, view == 1 ? 1 : 2, (data[1] & 0x20) != 0);
    (void)bb::fs::ServeNodeRequest(as, op, payload, bulk);
  }
  return 0;
}
