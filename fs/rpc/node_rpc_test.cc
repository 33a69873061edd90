// NodeService over the RPC encoding: the same contract against the local service and against
// the remote proxy (through an in-process twin of the transport), and garbage requests.
#include "fs/rpc/node_rpc.h"

#include <sys/xattr.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <optional>
#include <random>
#include <set>

#include "fs/rpc/node_ops.h"
#include "transport/wire.h"

namespace bb::fs {
namespace {

// The in-memory twin of Transport: hands each call straight to the server side.
class LoopbackTransport final : public transport::Transport {
 public:
  explicit LoopbackTransport(NodeService* server) : server_(server) {}
  void SetPeer(transport::NodeId, const std::string&, uint16_t) override {}
  uint16_t port() const override { return 0; }
  std::vector<transport::PeerCounters> Counters() const override { return {}; }
  void SetSelf(transport::NodeId) override {}
  Result<transport::CallResult> Call(transport::NodeId, uint16_t op, std::string_view payload,
                                     std::span<const char> bulk_out, std::span<char> bulk_in,
                                     std::chrono::milliseconds) override {
    transport::Response r = ServeNodeRequest(*server_, op, payload, {bulk_out.data(), bulk_out.size()});
    if (r.bulk.size() > bulk_in.size()) return Status(EMSGSIZE, "reply bulk too large");
    std::memcpy(bulk_in.data(), r.bulk.data(), r.bulk.size());
    return transport::CallResult{r.status, std::move(r.payload), r.bulk.size()};
  }

 private:
  NodeService* server_;
};

void RunContract(NodeService& s) {
  Metadata md;
  md.file_id = 77;
  md.size = 5;
  md.chunk_size = 4096;
  REQUIRE(s.CreateMeta("/a", md).ok());
  CHECK(s.CreateMeta("/a", md).code() == EEXIST);
  CHECK(s.GetMeta("/a")->file_id == 77);
  CHECK(s.GetMeta("/nope").error().code() == ENOENT);
  MetaUpdate u;
  u.grow_to = 100;
  u.mtime_ns = 9;
  u.mode = 0600;
  auto after = s.UpdateMeta("/a", u);
  REQUIRE(after.has_value());
  CHECK(after->size == 100);
  CHECK(after->mode == 0600);
  u = {};
  u.grow_to = 50;
  CHECK(s.UpdateMeta("/a", u)->size == 100);  // max merge
  u = {};
  u.size = 50;
  CHECK(s.UpdateMeta("/a", u)->size == 50);  // exact
  // Space fallocate reserved: only grows, and no size changes with it.
  u = {};
  u.alloc_to = 1 << 20;
  after = s.UpdateMeta("/a", u);
  REQUIRE(after.has_value());
  CHECK(after->alloc_end == 1 << 20);
  CHECK(after->size == 50);
  u.alloc_to = 4096;
  CHECK(s.UpdateMeta("/a", u)->alloc_end == 1 << 20);
  CHECK(s.GetMeta("/a")->alloc_end == 1 << 20);
  // Extended attributes: set, refused by their flags and limits, removed.
  u = {};
  u.xattr = MetaUpdate::XattrChange{"user.x", std::string("v\0w", 3), XATTR_CREATE};
  REQUIRE(s.UpdateMeta("/a", u).has_value());
  CHECK(s.GetMeta("/a")->xattrs.at("user.x") == std::string("v\0w", 3));
  CHECK(s.UpdateMeta("/a", u).error().code() == EEXIST);
  u.xattr = MetaUpdate::XattrChange{"user.y", "v", XATTR_REPLACE};
  CHECK(s.UpdateMeta("/a", u).error().code() == ENODATA);
  u.xattr = MetaUpdate::XattrChange{"user.y", std::string(kMaxXattrValue, 'v'), 0};
  REQUIRE(s.UpdateMeta("/a", u).has_value());
  u.xattr = MetaUpdate::XattrChange{"user.z", std::string(kMaxXattrValue, 'v'), 0};
  CHECK(s.UpdateMeta("/a", u).error().code() == ENOSPC);  // past 128 KiB for the file
  u.xattr = MetaUpdate::XattrChange{"user.y", std::nullopt, 0};
  REQUIRE(s.UpdateMeta("/a", u).has_value());
  u.xattr = MetaUpdate::XattrChange{"user.x", std::nullopt, 0};
  CHECK(s.UpdateMeta("/a", u)->xattrs.empty());
  CHECK(s.UpdateMeta("/a", u).error().code() == ENODATA);
  u.xattr = MetaUpdate::XattrChange{"user.kept", "through the move", 0};
  REQUIRE(s.UpdateMeta("/a", u).has_value());
  // A hard link's fields: the count moves by deltas and never below 0, the role is set.
  u = {};
  u.links = 2;
  u.link_role = LinkRole::kRecord;
  after = s.UpdateMeta("/a", u);
  REQUIRE(after.has_value());
  CHECK(after->nlink == 2);
  CHECK(after->link == LinkRole::kRecord);
  u = {};
  u.links = -3;
  CHECK(s.UpdateMeta("/a", u)->nlink == 0);
  CHECK(s.GetMeta("/a")->link == LinkRole::kRecord);
  // An update for one file changes only that file's own entry.
  u = {};
  u.grow_to = 120;
  u.if_file_id = 78;
  CHECK(s.UpdateMeta("/a", u).error().code() == ESTALE);
  CHECK(s.GetMeta("/a")->size == 50);
  u.if_file_id = 77;
  CHECK(s.UpdateMeta("/a", u)->size == 120);
  u = {};
  u.size = 50;
  REQUIRE(s.UpdateMeta("/a", u).has_value());
  REQUIRE(s.MoveMeta("/a", "/b", 12345).has_value());
  CHECK(s.GetMeta("/a").error().code() == ENOENT);
  CHECK(s.GetMeta("/b")->xattrs.at("user.kept") == "through the move");
  CHECK(s.GetMeta("/b")->ctime_ns == 12345);
  REQUIRE(s.PutMeta("/c", md).ok());
  for (int i = 0; i < 10; ++i) REQUIRE(s.CreateMeta("/d" + std::to_string(i), md).ok());
  auto page = s.ListDir("/", "", 5);
  REQUIRE(page.has_value());
  CHECK(page->entries.size() == 5);
  CHECK_FALSE(page->end);
  CHECK(page->entries[0].name == "b");
  auto rest = s.ListDir("/", page->entries.back().name, 100);
  CHECK(rest->entries.size() == 7);
  CHECK(rest->end);
  // The same with attributes: each entry's metadata, and where the page stops.
  auto attrs = s.ListAttrs("/", "b", 4);
  REQUIRE(attrs.has_value());
  REQUIRE(attrs->entries.size() == 4);
  CHECK(attrs->entries[0].name == "c");
  CHECK(attrs->entries[0].md.file_id == 77);
  CHECK(attrs->entries[0].md.size == 5);
  CHECK(attrs->last == "d2");
  CHECK_FALSE(attrs->end);
  auto tail = s.ListAttrs("/", attrs->last, 100);
  CHECK(tail->entries.size() == 7);
  CHECK(tail->last == "d9");
  CHECK(tail->end);
  CHECK(s.RemoveMeta("/b")->file_id == 77);
  // Reserved names (the bare store reserves nothing; grant 1 says it could), entries made on
  // them (one of the same file counts as made, another file's name is EEXIST), hand-overs.
  auto found = s.ReserveName("/c");
  REQUIRE(found.has_value());
  REQUIRE(found->entry.has_value());
  CHECK(found->entry->file_id == 77);
  auto absent = s.ReserveName("/r");
  REQUIRE(absent.has_value());
  CHECK_FALSE(absent->entry.has_value());
  CHECK(absent->grant == 1);
  Metadata made = md;
  made.file_id = 91;
  made.size = 3;
  auto codes = s.MakeEntries({{"/r", made, false}, {"/c", made, true}, {"/r", made, false}}, {{"/x", 4}});
  REQUIRE(codes.has_value());
  CHECK(*codes == std::vector<int>{0, EEXIST, 0});
  CHECK(s.GetMeta("/r")->size == 3);
  CHECK(s.MakeEntries({}, {})->empty());
  CHECK(s.HandOver({"/r", "/c"})->empty());  // holds nothing of another node's
  // A chunk with the entry made with it; refused (and the chunk gone) on another file's name.
  made.file_id = 92;
  MetaUpdate three;
  three.grow_to = 3;
  three.if_file_id = 92;
  auto with = s.WriteChunkAndUpdate(92, 4096, 0, 0, "abc", "/w", three, made);
  REQUIRE(with.has_value());
  REQUIRE(with->has_value());
  CHECK((*with)->file_id == 92);
  CHECK(s.GetMeta("/w")->file_id == 92);
  made.file_id = 93;
  three.if_file_id = 93;
  CHECK(s.WriteChunkAndUpdate(93, 4096, 0, 0, "abc", "/w", three, made).error().code() == EEXIST);
  char byte;
  CHECK(*s.ReadChunk(93, 4096, 0, 0, {&byte, 1}) == 0);
  CHECK(s.GetMeta("/w")->file_id == 92);
  constexpr uint64_t kChunk = 16384;
  std::string data(10000, 'z');
  REQUIRE(s.WriteChunk(77, kChunk, 2, 100, data).ok());
  std::string buf(kChunk, 'x');
  auto n = s.ReadChunk(77, kChunk, 2, 0, {buf.data(), buf.size()});
  REQUIRE(n.has_value());
  CHECK(*n == 10100);
  CHECK(buf.substr(100, 10000) == data);
  CHECK(*s.ReadChunk(77, kChunk, 3, 0, {buf.data(), 10}) == 0);
  // A range that does not fit its chunk is refused, and stores nothing.
  CHECK_FALSE(s.WriteChunk(77, kChunk, 3, kChunk - 10, data).ok());
  CHECK(*s.ReadChunk(77, kChunk, 3, 0, {buf.data(), 10}) == 0);
  // A chunk and its file's size in one request: the data always, the entry only when it is the
  // file's own (not another file's, nor a name of a linked one).
  Metadata small;
  small.file_id = 90;
  small.chunk_size = kChunk;
  REQUIRE(s.CreateMeta("/small", small).ok());
  MetaUpdate grow;
  grow.grow_to = 3901;
  grow.mtime_ns = 1234;
  grow.if_file_id = 90;
  std::string piece(3901, 'p');
  auto updated = s.WriteChunkAndUpdate(90, kChunk, 0, 0, piece, "/small", grow);
  REQUIRE(updated.has_value());
  REQUIRE(updated->has_value());
  CHECK((*updated)->size == 3901);
  CHECK((*updated)->mtime_ns == 1234);
  CHECK(s.GetMeta("/small")->size == 3901);
  CHECK(*s.ReadChunk(90, kChunk, 0, 0, {buf.data(), buf.size()}) == 3901);
  grow.grow_to = 8000;
  grow.if_file_id = 91;  // the name now holds another file
  updated = s.WriteChunkAndUpdate(91, kChunk, 0, 0, piece, "/small", grow);
  REQUIRE(updated.has_value());
  CHECK_FALSE(updated->has_value());
  CHECK(s.GetMeta("/small")->size == 3901);
  CHECK(*s.ReadChunk(91, kChunk, 0, 0, {buf.data(), buf.size()}) == 3901);  // written all the same
  updated = s.WriteChunkAndUpdate(92, kChunk, 0, 0, piece, "/absent", grow);
  REQUIRE(updated.has_value());
  CHECK_FALSE(updated->has_value());
  MetaUpdate to_name;
  to_name.link_role = LinkRole::kName;
  REQUIRE(s.UpdateMeta("/small", to_name).has_value());
  grow.if_file_id = 90;
  updated = s.WriteChunkAndUpdate(90, kChunk, 0, 0, piece, "/small", grow);
  REQUIRE(updated.has_value());
  CHECK_FALSE(updated->has_value());
  CHECK(s.GetMeta("/small")->size == 3901);
  // The write's own failure comes back as the error, and updates nothing.
  CHECK_FALSE(s.WriteChunkAndUpdate(90, kChunk, 0, kChunk - 10, piece, "/small", grow).has_value());
  // A file's entry and its one chunk in one request; another file's chunks, or a larger file's,
  // stay.
  MetaUpdate plain;
  plain.link_role = LinkRole::kNone;
  REQUIRE(s.UpdateMeta("/small", plain).has_value());
  auto wrong = s.RemoveFile("/small", 91);
  REQUIRE(wrong.has_value());
  CHECK_FALSE(wrong->data_gone);
  CHECK(wrong->entry.file_id == 90);
  CHECK(*s.ReadChunk(90, kChunk, 0, 0, {buf.data(), buf.size()}) == 3901);
  REQUIRE(s.CreateMeta("/small", small).ok());
  MetaUpdate sized;
  sized.size = 3901;
  REQUIRE(s.UpdateMeta("/small", sized).has_value());
  auto gone = s.RemoveFile("/small", 90);
  REQUIRE(gone.has_value());
  CHECK(gone->data_gone);
  CHECK(gone->entry.size == 3901);
  CHECK(*s.ReadChunk(90, kChunk, 0, 0, {buf.data(), buf.size()}) == 0);
  CHECK(s.GetMeta("/small").error().code() == ENOENT);
  CHECK(s.RemoveFile("/small", 90).error().code() == ENOENT);
  Metadata big = small;
  big.file_id = 91;
  big.size = kChunk + 1;
  REQUIRE(s.CreateMeta("/big", big).ok());
  auto kept = s.RemoveFile("/big", 91);
  REQUIRE(kept.has_value());
  CHECK_FALSE(kept->data_gone);
  CHECK(*s.ReadChunk(91, kChunk, 0, 0, {buf.data(), buf.size()}) == 3901);
  REQUIRE(s.RemoveChunks(91).ok());
  REQUIRE(s.TruncateChunks(77, 2 * kChunk + 50, kChunk).ok());
  CHECK(*s.ReadChunk(77, kChunk, 2, 0, {buf.data(), buf.size()}) == 50);
  REQUIRE(s.WriteChunk(77, kChunk, 6, 0, std::string(50, 'w')).ok());
  REQUIRE(s.ZeroChunk(77, kChunk, 6, 10, 20, false).ok());
  CHECK(*s.ReadChunk(77, kChunk, 6, 0, {buf.data(), buf.size()}) == 50);  // zeroed, not shortened
  CHECK(buf.substr(0, 50) == std::string(10, 'w') + std::string(20, '\0') + std::string(20, 'w'));
  REQUIRE(s.ZeroChunk(77, kChunk, 5, 0, 4096, true).ok());  // and reserved: 4096 zeros appear
  CHECK(*s.ReadChunk(77, kChunk, 5, 0, {buf.data(), buf.size()}) == 4096);
  CHECK_FALSE(s.ZeroChunk(77, kChunk, 2, kChunk - 10, 20, false).ok());
  // Ranges of one chunk in one request, in order (a later one wins where they overlap); more
  // ranges than one request takes go in several.
  std::string a(10, 'a'), b(20, 'b'), c(5, 'c');
  std::vector<ChunkRange> ranges = {{100, a}, {4000, b}, {105, c}};
  REQUIRE(s.WriteChunkRanges(78, kChunk, 1, ranges).ok());
  REQUIRE(*s.ReadChunk(78, kChunk, 1, 0, {buf.data(), buf.size()}) == 4020);
  CHECK(buf.substr(0, 100) == std::string(100, '\0'));
  CHECK(buf.substr(100, 10) == "aaaaaccccc");
  CHECK(buf.substr(4000, 20) == b);
  std::string digits = "0123456789";
  std::vector<ChunkRange> many;
  for (uint64_t i = 0; i < 1500; ++i) many.push_back({2 * i, {digits.data() + i % 10, 1}});
  REQUIRE(s.WriteChunkRanges(78, kChunk, 2, many).ok());
  REQUIRE(*s.ReadChunk(78, kChunk, 2, 0, {buf.data(), buf.size()}) == 2999);
  bool every = true;
  for (uint64_t i = 0; i < 1500; ++i) every = every && buf[2 * i] == digits[i % 10] && (i == 0 || buf[2 * i - 1] == 0);
  CHECK(every);
  CHECK_FALSE(s.WriteChunkRanges(78, kChunk, 3, std::vector<ChunkRange>{{0, a}, {kChunk - 5, b}}).ok());
  REQUIRE(s.RemoveChunks(78).ok());
  // Record locks: another owner's conflicting lock is told (and refused), an unlock frees it.
  RangeLock w{{0, 5}, LockType::kWrite, 0, 99, 42};
  REQUIRE_FALSE(s.Lock(300, w, false).value());
  RangeLock r{{0, 6}, LockType::kRead, 50, kLockToEnd, 43};
  CHECK(s.Lock(300, r, true).value() == w);
  CHECK(s.Lock(300, r, false).value() == w);
  CHECK_FALSE(s.Lock(301, r, false).value());  // another file
  RangeLock all = w;
  all.type = LockType::kUnlock;
  all.end = kLockToEnd;
  REQUIRE_FALSE(s.Lock(300, all, false).value());
  CHECK_FALSE(s.Lock(300, r, true).value());
  REQUIRE_FALSE(s.Lock(300, r, false).value());
  CHECK(s.Lock(300, w, true).value() == r);
  // flock locks beside them: another kind, told as a flock lock.
  RangeLock f{{0, 5, true}, LockType::kWrite, 0, kLockToEnd, 44};
  REQUIRE_FALSE(s.Lock(300, f, false).value());
  RangeLock g{{0, 6, true}, LockType::kRead, 0, kLockToEnd, 45};
  CHECK(s.Lock(300, g, false).value() == f);
  REQUIRE(s.AllocateChunk(77, kChunk, 0, 0, 4096).ok());
  CHECK(s.Sync(77).ok());
  REQUIRE(s.RemoveChunks(77).ok());
  CHECK(*s.ReadChunk(77, kChunk, 2, 0, {buf.data(), buf.size()}) == 0);
  auto space = s.StatSpace();
  REQUIRE(space.has_value());
  CHECK(space->block_size > 0);

  // Workspaces: record and root entry together; purge of everything below at any depth.
  WorkspaceSpec spec{{LayoutMode::kHybrid, 0.25}, 8192};
  Metadata dir;
  dir.type = FileType::kDirectory;
  dir.file_id = 500;
  REQUIRE(s.PutWorkspace("ws", spec, dir).ok());
  CHECK(s.PutWorkspace("ws", spec, dir).ok());  // the same again: nothing to do
  CHECK(s.PutWorkspace("ws", WorkspaceSpec{{LayoutMode::kNodeLocal}, 8192}, dir).code() == EEXIST);
  CHECK(s.PutWorkspace("c", spec, dir).code() == EEXIST);  // /c is a plain entry
  CHECK(s.GetMeta("/ws")->file_id == 500);
  for (int i = 0; i < 30; ++i) {
    Metadata f = md;
    f.file_id = 1000 + i;
    REQUIRE(s.CreateMeta("/ws/" + std::string(i % 3 + 1, 'd') + "/f" + std::to_string(i), f).ok());
  }
  REQUIRE(s.WriteChunk(1005, kChunk, 0, 0, "x").ok());
  std::set<uint64_t> purged;
  uint32_t removed = 0;
  for (;;) {
    auto p = s.PurgeTree("/ws", 7);
    REQUIRE(p.has_value());
    removed += p->removed;
    purged.insert(p->file_ids.begin(), p->file_ids.end());
    if (!p->more) break;
  }
  CHECK(removed == 30);
  CHECK(purged.size() == 30);
  CHECK(purged.count(1029) == 1);
  REQUIRE(s.RemoveFiles({purged.begin(), purged.end()}).ok());
  CHECK(*s.ReadChunk(1005, kChunk, 0, 0, {buf.data(), 10}) == 0);
  CHECK(s.GetMeta("/ws")->file_id == 500);  // the root stays until the workspace is dropped
  REQUIRE(s.DropWorkspace("ws").ok());
  CHECK(s.GetMeta("/ws").error().code() == ENOENT);
  CHECK(s.GetMeta("/c")->file_id == 77);
}

TEST_CASE("NodeService contract: local", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  RunContract(*local);
}

TEST_CASE("NodeService contract: remote proxy over the wire encoding", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  LoopbackTransport t(local.get());
  auto remote = NewRemoteNodeService(&t, 1, std::chrono::milliseconds(1000));
  RunContract(*remote);
}

TEST_CASE("garbage requests get EPROTO and change nothing", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  Metadata md;
  md.file_id = 5;
  REQUIRE(local->CreateMeta("/keep", md).ok());
  std::mt19937_64 rng(11);
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    uint16_t op = static_cast<uint16_t>(rng() % 24);
    std::string payload(rng() % 40, '\0');
    for (auto& c : payload) c = static_cast<char>(rng());
    auto r = ServeNodeRequest(*local, op, payload, "");
    if (r.status == EPROTO) ++rejected;
  }
  CHECK(rejected > 15000);
  CHECK(local->GetMeta("/keep")->file_id == 5);
  auto r = ServeNodeRequest(*local, 999, "", "");
  CHECK(r.status == EPROTO);
  CHECK_THAT(r.payload, Catch::Contains("unknown operation 999"));
}

TEST_CASE("chunk requests with a chunk size no file has, or a range beyond it, get EPROTO", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  auto write = [&](uint64_t chunk, uint64_t offset, const std::string& data) {
    std::string p = transport::Writer().U64(9).U64(chunk).U64(0).U64(offset).Take();
    return ServeNodeRequest(*local, static_cast<uint16_t>(NodeOp::kWriteChunk), p, data);
  };
  CHECK(write(4096, 0, "ok").status == 0);
  for (uint64_t bad : {0ull, 3000ull, 2048ull, 1ull << 31, (1ull << 32) + 4096}) {
    auto r = write(bad, 0, "x");
    CHECK(r.status == EPROTO);
    CHECK_THAT(r.payload, Catch::Contains("beyond its chunk"));
  }
  CHECK(write(4096, 4095, "xy").status == EPROTO);  // one byte past the chunk
  CHECK(write(4096, 4097, "").status == EPROTO);
  std::string buf(16, '\0');
  CHECK(chunks->Read(9, 4096, 0, 0, {buf.data(), buf.size()}).value() == 2);
  CHECK(buf.substr(0, 2) == "ok");
  std::string read = transport::Writer().U64(9).U64(4096).U64(0).U64(4000).U64(200).Take();
  // Ranges: none, more than a request takes, a count the payload cannot hold, lengths that do not
  // add up to the data, a range beyond its chunk: refused whole, nothing written.
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  auto ranges = [&](const Ranges& rs, const std::string& data, uint32_t count) {
    transport::Writer w;
    w.U64(10).U64(4096).U64(0).U32(count);
    for (auto [offset, length] : rs) w.U64(offset).U64(length);
    return ServeNodeRequest(*local, static_cast<uint16_t>(NodeOp::kWriteChunkRanges), w.Take(), data);
  };
  auto refused = [&](const Ranges& rs, const std::string& data, const char* why, std::optional<uint32_t> count = {}) {
    auto r = ranges(rs, data, count.value_or(static_cast<uint32_t>(rs.size())));
    CHECK(r.status == EPROTO);
    CHECK_THAT(r.payload, Catch::Contains(why));
  };
  refused({}, "", "no range");
  refused(Ranges(1025, {0, 1}), std::string(1025, 'x'), "write chunk ranges");
  refused({{0, 1}}, "x", "write chunk ranges", 3);
  refused({{0, 2}, {10, 2}}, "xyz", "longer than the data");
  refused({{0, 2}, {10, 2}}, "wxyz!", "data longer than the ranges");
  refused({{0, 2}, {4095, 2}}, "wxyz", "beyond its chunk");
  CHECK(chunks->Read(10, 4096, 0, 0, {buf.data(), buf.size()}).value() == 0);
  CHECK(ranges({{0, 2}, {10, 2}}, "wxyz", 2).status == 0);
  CHECK(chunks->Read(10, 4096, 0, 0, {buf.data(), buf.size()}).value() == 12);
  CHECK(ServeNodeRequest(*local, static_cast<uint16_t>(NodeOp::kReadChunk), read, "").status == EPROTO);
}

TEST_CASE("a chunk write with an update is refused whole when either part is malformed", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  Metadata md;
  md.file_id = 9;
  md.chunk_size = 4096;
  REQUIRE(local->CreateMeta("/f", md).ok());
  auto op = static_cast<uint16_t>(NodeOp::kWriteChunkAndUpdate);
  auto request = [](uint64_t offset, const std::string& update) {
    return transport::Writer().U64(9).U64(4096).U64(0).U64(offset).Str("/f").Str(update).Str("").Take();
  };
  MetaUpdate grow;
  grow.grow_to = 2;
  std::string unnamed = rpc::EncodeUpdate(grow);  // names no file
  grow.if_file_id = 9;
  std::string good = rpc::EncodeUpdate(grow);
  CHECK(ServeNodeRequest(*local, op, request(0, unnamed), "ok").status == EPROTO);
  CHECK(ServeNodeRequest(*local, op, request(4095, good), "ok").status == EPROTO);            // past the chunk
  CHECK(ServeNodeRequest(*local, op, request(0, good.substr(0, 9)), "ok").status == EPROTO);  // short update
  CHECK(ServeNodeRequest(*local, op, request(0, good) + "x", "ok").status == EPROTO);         // trailing byte
  CHECK(local->GetMeta("/f")->size == 0);
  std::string buf(16, '\0');
  CHECK(chunks->Read(9, 4096, 0, 0, {buf.data(), buf.size()}).value() == 0);
  auto r = ServeNodeRequest(*local, op, request(0, good), "ok");
  REQUIRE(r.status == 0);
  auto reply = rpc::WriteChunkAndUpdate::DecodeReply(r.payload);
  REQUIRE(reply.has_value());
  REQUIRE(reply->has_value());
  CHECK((*reply)->size == 2);
  // Replies the client cannot read: empty, an entry that is not one, a trailing byte.
  for (const std::string& bad :
       {std::string(), transport::Writer().U8(1).Str("junk").Take(), transport::Writer().U8(0).U8(0).Take()}) {
    CHECK_FALSE(rpc::WriteChunkAndUpdate::DecodeReply(bad).has_value());
  }
}

TEST_CASE("a page with attributes stops at its byte bound, and a malformed one is refused", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  LoopbackTransport t(local.get());
  auto remote = NewRemoteNodeService(&t, 1, std::chrono::milliseconds(1000));
  // 300 symlinks with 4,000-byte targets: 1.2 MB of entries, past the transport's 1 MiB payload.
  Metadata link;
  link.type = FileType::kSymlink;
  link.symlink_target = std::string(4000, 't');
  for (int i = 0; i < 300; ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "/l%03d", i);
    link.file_id = 1000 + i;
    REQUIRE(local->CreateMeta(name, link).ok());
  }
  std::string after;
  size_t seen = 0, pages = 0;
  for (;;) {
    auto page = remote->ListAttrs("/", after, 1000);
    REQUIRE(page.has_value());
    ++pages;
    for (const auto& e : page->entries) CHECK(e.md.symlink_target.size() == 4000);
    seen += page->entries.size();
    after = page->last;
    if (page->end) break;
  }
  CHECK(seen == 300);
  CHECK(pages >= 3);
  // Replies out of order, with a bad entry, or longer than asked for are refused.
  for (const std::string& bad : {
           transport::Writer().U8(1).Str("a").U32(1).Str("b").Str(EncodeMetadata(link)).Take(),
           transport::Writer()
               .U8(1)
               .Str("z")
               .U32(2)
               .Str("b")
               .Str(EncodeMetadata(link))
               .Str("a")
               .Str(EncodeMetadata(link))
               .Take(),
           transport::Writer().U8(1).Str("z").U32(1).Str("b").Str("junk").Take(),
           transport::Writer().U8(1).Str("z").U32(5000).Take(),
       }) {
    CHECK_FALSE(rpc::ListAttrs::DecodeReply(bad, 1000).has_value());
  }
  auto op = static_cast<uint16_t>(NodeOp::kListAttrs);
  CHECK(ServeNodeRequest(*local, op, transport::Writer().Str("/").Str("").U32(0).Take(), "").status == EPROTO);
}

TEST_CASE("a caller's locks are its own: its node is the one it proved, and malformed locks are refused", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  ManualClock clock;
  Coherence coherence(NodeView{3, 0}, 1'000'000'000, &clock, nullptr);
  CoherentView as1(local.get(), &coherence, 1), as2(local.get(), &coherence, 2);
  // Node 1 names node 2 as the owner; the lock is node 1's all the same.
  RangeLock claimed{{2, 5}, LockType::kWrite, 0, kLockToEnd, 1};
  REQUIRE_FALSE(as1.Lock(7, claimed, false).value());
  auto seen = as2.Lock(7, claimed, true).value();
  REQUIRE(seen);
  CHECK(seen->owner == LockOwner{1, 5});
  // Node 2 cannot unlock it by naming node 1.
  RangeLock unlock{{1, 5}, LockType::kUnlock, 0, kLockToEnd, 1};
  REQUIRE_FALSE(as2.Lock(7, unlock, false).value());
  CHECK(as2.Lock(7, claimed, true).value());
  REQUIRE_FALSE(as1.Lock(7, unlock, false).value());
  CHECK_FALSE(as2.Lock(7, claimed, true).value());

  auto op = static_cast<uint16_t>(NodeOp::kLock);
  auto request = [](uint8_t type, uint64_t start, uint64_t end, uint8_t test, uint8_t flock = 0) {
    return transport::Writer().U64(7).U32(1).U64(5).U8(type).U64(start).U64(end).U32(1).U8(flock).U8(test).Take();
  };
  CHECK(ServeNodeRequest(*local, op, request(1, 0, 10, 0), "").status == 0);
  CHECK(ServeNodeRequest(*local, op, request(1, 0, kLockToEnd, 0, 1), "").status == 0);  // a flock lock
  for (const std::string& bad :
       {request(3, 0, 10, 0), request(1, 11, 10, 0), request(1, 0, kLockToEnd + 1, 0), request(1, 0, 10, 2),
        request(2, 0, 10, 1), request(1, 0, 10, 0) + "x", request(1, 0, kLockToEnd, 0, 2),
        request(1, 0, 10, 0, 1) /* a flock lock of part of the file */}) {
    CHECK(ServeNodeRequest(*local, op, bad, "").status == EPROTO);
  }
  CHECK(local->Lock(7, RangeLock{{1, 9}, LockType::kRead, 0, 0, 1}, true).value());  // the one good lock
  for (const std::string& bad : {std::string("\x02"), std::string("\x01"), transport::Writer().U8(0).U8(0).Take(),
                                 transport::Writer().U8(1).U32(1).U64(1).U8(2).U64(0).U64(1).U32(0).Take()}) {
    CHECK_FALSE(rpc::Lock::DecodeReply(bad).has_value());
  }
}

TEST_CASE("a node that starts again is given back the locks held of it, and only those", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  ManualClock clock;
  Coherence coherence(NodeView{3, 1}, 1'000'000'000, &clock, nullptr);
  HeldLocks held;  // node 1's, of files nodes 0 and 2 keep
  RangeLock mine{{1, 5}, LockType::kWrite, 10, 19, 42};
  RangeLock flock{{1, 6, true}, LockType::kRead, 0, kLockToEnd, 43};
  for (uint64_t file = 1; file <= 3000; ++file) held.Note(file % 2 == 0 ? 0 : 2, file, file % 3 ? mine : flock, false);
  coherence.SetHandOver(nullptr, nullptr, nullptr, [&](NodeId keeper, uint64_t after, uint32_t limit) {
    return held.KeptBy(keeper, after, limit);
  });
  CoherentView as0(local.get(), &coherence, 0);
  LoopbackTransport t(&as0);
  auto remote = NewRemoteNodeService(&t, 1, std::chrono::milliseconds(1000));
  std::vector<HeldLock> got;
  uint64_t after = 0;
  for (int pages = 0;; ++pages) {
    REQUIRE(pages < 10);
    auto page = remote->HeldLocks(after, 1000);
    REQUIRE(page.has_value());
    got.insert(got.end(), page->locks.begin(), page->locks.end());
    if (!page->more) break;
    after = page->locks.back().file_id;
  }
  REQUIRE(got.size() == 1500);  // node 0's share: the even files, all of them, once each
  bool right = true;
  for (size_t i = 0; i < got.size(); ++i) {
    uint64_t file = 2 * (i + 1);
    right = right && got[i] == HeldLock{file, file % 3 ? mine : flock};
  }
  CHECK(right);

  auto op = static_cast<uint16_t>(NodeOp::kHeldLocks);
  CHECK(ServeNodeRequest(as0, op, transport::Writer().U64(0).U32(10).Take(), "").status == 0);
  for (const std::string& bad : {transport::Writer().U64(0).U32(0).Take(), transport::Writer().U64(0).U32(4097).Take(),
                                 transport::Writer().U64(0).Take(), transport::Writer().U64(0).U32(1).Take() + "x"}) {
    CHECK(ServeNodeRequest(as0, op, bad, "").status == EPROTO);
  }
  auto lock_of = [](uint64_t file, uint8_t type) {
    return transport::Writer().U64(file).U32(1).U64(5).U8(type).U64(0).U64(9).U32(1).U8(0).Take();
  };
  std::string one = transport::Writer().U8(0).U32(1).Take();
  CHECK(rpc::HeldLocks::DecodeReply(one + lock_of(7, 1), 10).has_value());
  for (const std::string& bad : {one + lock_of(0, 1) /* the file of no file */, one + lock_of(7, 2) /* an unlock */,
                                 transport::Writer().U8(2).U32(0).Take(), one, one + lock_of(7, 1) + "x",
                                 transport::Writer().U8(0).U32(10 + 4097).Take() /* past a page's bound */}) {
    CHECK_FALSE(rpc::HeldLocks::DecodeReply(bad, 10).has_value());
  }
}

TEST_CASE("only reads are answered on the progress thread, never a write", "[rpc]") {
  auto on = [](auto op) { return ServedOnOf(static_cast<uint16_t>(op)); };
  auto inline_for = [&](NodeOp op) { return on(op) == transport::ServedOn::kDrivingThread; };
  for (NodeOp op : {NodeOp::kGetMeta, NodeOp::kPing, NodeOp::kReserveName}) CHECK(inline_for(op));
  // Writes (a LevelDB write may wait for a compaction), changes that may tell other nodes, scans
  // and chunk I/O: never inline.
  for (NodeOp op :
       {NodeOp::kCreateMeta,    NodeOp::kUpdateMeta,     NodeOp::kPutMeta,       NodeOp::kRemoveMeta,
        NodeOp::kMoveMeta,      NodeOp::kListDir,        NodeOp::kWriteChunk,    NodeOp::kReadChunk,
        NodeOp::kAllocateChunk, NodeOp::kTruncateChunks, NodeOp::kRemoveChunks,  NodeOp::kSync,
        NodeOp::kStatSpace,     NodeOp::kPutWorkspace,   NodeOp::kDropWorkspace, NodeOp::kPurgeTree,
        NodeOp::kRemoveFiles,   NodeOp::kInvalidate,     NodeOp::kListAttrs,     NodeOp::kWriteChunkAndUpdate,
        NodeOp::kMakeEntries,   NodeOp::kHandOver,       NodeOp::kRemoveFile,    NodeOp::kLeaseDir,
        NodeOp::kHandOverDir,   NodeOp::kMoveOutMeta,    NodeOp::kZeroChunk,     NodeOp::kWriteChunkRanges,
        NodeOp::kLock,          NodeOp::kHeldLocks}) {
    CHECK_FALSE(inline_for(op));
  }
  CHECK(on(999) == transport::ServedOn::kHandlers);  // refused there
  // Invalidations, which owners wait for while holding a handler thread, are served on a
  // thread of their own; nothing else is.
  CHECK(on(NodeOp::kInvalidate) == transport::ServedOn::kOwnThread);
  CHECK(on(NodeOp::kHandOver) == transport::ServedOn::kOwnThread);  // what an owner's handler waits for
  CHECK(on(NodeOp::kHandOverDir) == transport::ServedOn::kOwnThread);
  for (NodeOp op : {NodeOp::kGetMeta, NodeOp::kRemoveMeta, NodeOp::kUpdateMeta, NodeOp::kWriteChunk}) {
    CHECK(on(op) != transport::ServedOn::kOwnThread);
  }
}

TEST_CASE("invalidations reach the other node's kernel through its view, and malformed ones are refused", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  ManualClock clock;
  Coherence coherence(NodeView{2, 1}, 1'000'000'000, &clock, nullptr);
  std::vector<Invalidation> told;
  coherence.SetKernel([&](const std::vector<Invalidation>& items) { told = items; });
  CoherentView view(local.get(), &coherence, 0);
  LoopbackTransport t(&view);
  auto remote = NewRemoteNodeService(&t, 1, std::chrono::milliseconds(1000));
  // A name, attributes, a name moved (with its file and where it went), a linked file's name.
  std::vector<Invalidation> items = {
      {"/ws/a", true}, {"/ws/dir/b", false}, {"/ws/c", true, 7, "/ws/d"}, {"/ws/e", true, 9, ""}};
  REQUIRE(remote->Invalidate(items).ok());
  CHECK(told == items);
  told.clear();
  auto op = static_cast<uint16_t>(NodeOp::kInvalidate);
  // A count larger than the message holds, a kind that is none of 0, 1 and 2, a short item, a
  // moved name without its file id or without where it went.
  for (const std::string& bad :
       {transport::Writer().U32(1000).Take(), transport::Writer().U32(1).Str("/x").U8(7).Take(),
        transport::Writer().U32(2).Str("/x").U8(1).Take(), transport::Writer().U32(1).Str("/x").U8(2).Take(),
        transport::Writer().U32(1).Str("/x").U8(2).U64(0).Str("/y").Take(),
        transport::Writer().U32(1).Str("/x").U8(2).U64(3).Take()}) {
    CHECK(ServeNodeRequest(view, op, bad, "").status == EPROTO);
  }
  CHECK(told.empty());
}

TEST_CASE("messages of reserved names: malformed requests and replies are refused", "[rpc]") {
  auto meta = NewMemoryMetaStore();
  auto chunks = NewMemoryChunkStore();
  auto local = NewLocalNodeService(meta.get(), chunks.get(), {});
  auto serve = [&](NodeOp op, const std::string& payload) {
    return ServeNodeRequest(*local, static_cast<uint16_t>(op), payload, "");
  };
  Metadata md;
  md.file_id = 5;
  std::string value = EncodeMetadata(md);
  // MakeEntries: a count the message cannot hold, an in-flight byte that is neither 0 nor 1, an
  // entry that is not one, a trailing byte.
  for (const std::string& bad : {
           transport::Writer().U32(100000).Take(),
           transport::Writer().U32(1).Str("/a").Str(value).U8(2).U32(0).Take(),
           transport::Writer().U32(1).Str("/a").Str("junk").U8(0).U32(0).Take(),
           transport::Writer().U32(1).Str("/a").Str(value).U8(0).U32(0).U8(0).Take(),
           transport::Writer().U32(0).U32(5000).Take(),
       }) {
    CHECK(serve(NodeOp::kMakeEntries, bad).status == EPROTO);
  }
  CHECK(local->GetMeta("/a").error().code() == ENOENT);
  auto good = serve(NodeOp::kMakeEntries, transport::Writer().U32(1).Str("/a").Str(value).U8(0).U32(0).Take());
  REQUIRE(good.status == 0);
  CHECK(rpc::MakeEntries::DecodeReply(good.payload, 1).value() == std::vector<int>{0});
  CHECK_FALSE(rpc::MakeEntries::DecodeReply(good.payload, 2).has_value());  // not the count sent
  CHECK_FALSE(rpc::MakeEntries::DecodeReply(transport::Writer().U32(1).U32(99999).Take(), 1).has_value());
  // HandOver: a count past the message; replies with an entry not asked for, or more than asked.
  CHECK(serve(NodeOp::kHandOver, transport::Writer().U32(70000).Take()).status == EPROTO);
  std::string one = transport::Writer().U32(1).Str("/b").Str(value).U8(1).Take();
  CHECK(rpc::HandOver::DecodeReply(one, {"/b"}).value().at(0).in_flight);
  CHECK_FALSE(rpc::HandOver::DecodeReply(one, {"/c"}).has_value());
  CHECK_FALSE(rpc::HandOver::DecodeReply(one, {}).has_value());
  // HandOverDir: only entries of the directory asked for.
  CHECK(rpc::HandOverDir::DecodeReply(one, "/").value().at(0).path == "/b");
  CHECK_FALSE(rpc::HandOverDir::DecodeReply(one, "/d").has_value());
  CHECK_FALSE(rpc::HandOverDir::DecodeReply(transport::Writer().U32(70000).Take(), "/").has_value());
  // LeaseDir: the bare local service leases nothing; replies with a bad name, names on a refusal,
  // a count past the message or a trailing byte.
  auto lease = serve(NodeOp::kLeaseDir, transport::Writer().Str("/d").U64(0).Take());
  REQUIRE(lease.status == 0);
  CHECK(rpc::LeaseDir::DecodeReply(lease.payload).value() == DirLease{});
  CHECK(rpc::LeaseDir::DecodeReply(transport::Writer().U64(3).U32(1).Str("a").Take()).value() == DirLease{3, {"a"}});
  for (const std::string& bad :
       {transport::Writer().U64(3).U32(1).Str("a/b").Take(), transport::Writer().U64(3).U32(1).Str("").Take(),
        transport::Writer().U64(0).U32(1).Str("a").Take(), transport::Writer().U64(3).U32(9).Take(),
        transport::Writer().U64(3).U32(0).U8(0).Take()}) {
    CHECK_FALSE(rpc::LeaseDir::DecodeReply(bad).has_value());
  }
  // ReserveName: replies of an unknown kind, with a bad entry, or a trailing byte.
  for (const std::string& bad : {transport::Writer().U8(2).U64(0).Take(), transport::Writer().U8(1).Str("junk").Take(),
                                 transport::Writer().U8(0).U64(1).U8(0).Take()}) {
    CHECK_FALSE(rpc::ReserveName::DecodeReply(bad).has_value());
  }
  // A chunk write that would make another file's entry than the one it writes.
  MetaUpdate grow;
  grow.grow_to = 1;
  grow.if_file_id = 6;
  std::string write =
      transport::Writer().U64(6).U64(4096).U64(0).U64(0).Str("/c").Str(rpc::EncodeUpdate(grow)).Str(value).Take();
  auto r = ServeNodeRequest(*local, static_cast<uint16_t>(NodeOp::kWriteChunkAndUpdate), write, "x");
  CHECK(r.status == EPROTO);
  CHECK(local->GetMeta("/c").error().code() == ENOENT);
}

}  // namespace
}  // namespace bb::fs
