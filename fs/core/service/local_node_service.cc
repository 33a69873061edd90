// LocalNodeService: the handlers for this node's share of metadata and chunks.
//
// LevelDB has no read-modify-write, so create-if-absent, updates, removes and moves of an
// entry hold the stripe lock of its path across the Get and the Write. The stripes protect only
// that sequence (no reply, RPC or chunk I/O happens under them); a move takes the two stripes in
// index order.
#include <sys/statvfs.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>

#include "fs/base/hash.h"
#include "fs/core/placement/path.h"
#include "fs/core/service/node_service.h"

namespace bb::fs {
namespace {

constexpr size_t kStripes = 64;

class LocalNodeService final : public NodeService {
 public:
  LocalNodeService(MetaStore* meta, ChunkStore* chunks, LocalNodeOptions options)
      : meta_(meta),
        chunks_(chunks),
        options_(std::move(options)),
        // Chunk writes stop at the full reserve; metadata may use its lower half, so a file
        // whose data was refused can still be created, renamed or removed.
        guard_(options_.root.empty() ? "/" : options_.root, options_.reserve_bytes / 2) {}

  Result<Metadata> GetMeta(const std::string& path) override {
    CountMeta();
    BB_ASSIGN_OR_RETURN(std::string value, meta_->Get(DentryKey(path)));
    return Decode(path, value);
  }

  Result<NameLookup> ReserveName(const std::string& path) override {
    auto md = GetMeta(path);
    if (md) return NameLookup{std::move(*md), 0};
    if (md.error().code() != ENOENT) return md.error();
    // Reserves nothing itself: says whether its entry would fit (a deferred create is not refused later for space).
    return NameLookup{std::nullopt, CheckSpace().ok() ? 1u : 0u};
  }

  Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made, const std::vector<NameGrant>&) override {
    std::vector<int> out;
    out.reserve(made.size());
    for (const MadeEntry& e : made) out.push_back(MakeEntry(e).code());
    return out;
  }

  Result<std::vector<MadeEntry>> HandOver(const std::vector<std::string>&) override {
    return std::vector<MadeEntry>{};  // holds no reservation of another node
  }

  Status CreateMeta(const std::string& path, const Metadata& md) override {
    CountMeta();
    BB_RETURN_IF_ERROR(CheckSpace());
    return CreateEntry(path, md);
  }

  // CreateMeta without the space check.
  Status CreateEntry(const std::string& path, const Metadata& md) {
    std::string key = DentryKey(path);
    std::lock_guard lock(Stripe(path));
    auto existing = meta_->Get(key);
    if (existing) return Status(EEXIST, path);
    if (existing.error().code() != ENOENT) return existing.error();
    return meta_->Put(key, EncodeMetadata(md));
  }

  Status PutMeta(const std::string& path, const Metadata& md) override {
    CountMeta();
    BB_RETURN_IF_ERROR(CheckSpace());
    std::lock_guard lock(Stripe(path));
    return meta_->Put(DentryKey(path), EncodeMetadata(md));
  }

  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& u) override {
    CountMeta();
    BB_RETURN_IF_ERROR(CheckSpace());
    std::string key = DentryKey(path);
    std::lock_guard lock(Stripe(path));
    BB_ASSIGN_OR_RETURN(std::string value, meta_->Get(key));
    BB_ASSIGN_OR_RETURN(Metadata md, Decode(path, value));
    if (u.if_file_id && (md.file_id != *u.if_file_id || md.link == LinkRole::kName)) {
      return Status(ESTALE, path + ": not the entry of file " + std::to_string(*u.if_file_id));
    }
    BB_RETURN_IF_ERROR(CheckUpdate(u, md, path));
    ApplyUpdate(u, &md);
    BB_RETURN_IF_ERROR(meta_->Put(key, EncodeMetadata(md)));
    return md;
  }

  Result<Metadata> RemoveMeta(const std::string& path) override {
    CountMeta();
    std::string key = DentryKey(path);
    std::lock_guard lock(Stripe(path));
    BB_ASSIGN_OR_RETURN(std::string value, meta_->Get(key));
    BB_ASSIGN_OR_RETURN(Metadata md, Decode(path, value));
    BB_RETURN_IF_ERROR(meta_->Delete(key));
    return md;
  }

  Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) override {
    return RemoveMetaThenChunks(*this, path, file_id);
  }

  Result<Metadata> MoveOutMeta(const std::string& from, const std::string&) override { return RemoveMeta(from); }

  Result<Metadata> MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) override {
    CountMeta();
    size_t a = StripeIndex(from), b = StripeIndex(to);
    std::unique_lock first(stripes_[std::min(a, b)]);
    std::unique_lock<std::mutex> second;
    if (a != b) second = std::unique_lock(stripes_[std::max(a, b)]);
    std::string from_key = DentryKey(from);
    BB_ASSIGN_OR_RETURN(std::string value, meta_->Get(from_key));
    BB_ASSIGN_OR_RETURN(Metadata md, Decode(from, value));
    if (md.link != LinkRole::kName) md.ctime_ns = std::max(md.ctime_ns, ctime_ns);  // a name's are its record's
    WriteBatch batch;
    batch.Delete(from_key);
    batch.Put(DentryKey(to), EncodeMetadata(md));
    BB_RETURN_IF_ERROR(meta_->Write(batch, false));
    return md;
  }

  Result<DirPage> ListDir(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    CountMeta();
    std::string prefix = ChildKeyPrefix(dir);
    BB_ASSIGN_OR_RETURN(std::vector<KeyValue> kvs, meta_->Scan(prefix, start_after, limit));
    DirPage page;
    page.end = kvs.size() < limit;
    page.entries.reserve(kvs.size());
    for (auto& [key, value] : kvs) {
      std::string name(ChildName(key, prefix));
      BB_ASSIGN_OR_RETURN(Metadata md, Decode(dir + "/" + name, value));
      page.entries.push_back({std::move(name), md.type, md.file_id});
    }
    return page;
  }

  Result<DirAttrPage> ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    CountMeta();
    std::string prefix = ChildKeyPrefix(dir);
    BB_ASSIGN_OR_RETURN(std::vector<KeyValue> kvs, meta_->Scan(prefix, start_after, limit));
    DirAttrPage page;
    page.end = kvs.size() < limit;
    page.last = start_after;
    size_t bytes = 0;
    for (auto& [key, value] : kvs) {
      std::string name(ChildName(key, prefix));
      bytes += name.size() + value.size();
      if (bytes > kAttrPageBytes && !page.entries.empty()) {
        page.end = false;
        break;
      }
      BB_ASSIGN_OR_RETURN(Metadata md, Decode(dir + "/" + name, value));
      page.last = name;
      page.entries.push_back({std::move(name), std::move(md)});
    }
    return page;
  }

  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    CountData(0, data.size());
    return chunks_->Write(file_id, chunk_size, index, offset, data);
  }
  Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                          std::span<const ChunkRange> ranges) override {
    for (const ChunkRange& r : ranges) BB_RETURN_IF_ERROR(WriteChunk(file_id, chunk_size, index, r.offset, r.data));
    return Status::Ok();
  }
  Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                      uint64_t offset, std::span<const char> data,
                                                      const std::string& path, const MetaUpdate& update,
                                                      const std::optional<Metadata>& make) override {
    return WriteChunkThenUpdate(*this, file_id, chunk_size, index, offset, data, path, update, make);
  }
  Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                           std::span<char> buf) override {
    auto n = chunks_->Read(file_id, chunk_size, index, offset, buf);
    CountData(n ? *n : 0, 0);
    return n;
  }
  Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       uint64_t length) override {
    return chunks_->Allocate(file_id, chunk_size, index, offset, length);
  }
  Status ZeroChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length,
                   bool allocate) override {
    BB_RETURN_IF_ERROR(chunks_->Zero(file_id, chunk_size, index, offset, length));
    return allocate ? chunks_->Allocate(file_id, chunk_size, index, offset, length) : Status::Ok();
  }
  Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return chunks_->Truncate(file_id, size, chunk_size);
  }
  Status RemoveChunks(uint64_t file_id) override { return chunks_->Remove(file_id); }
  Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test) override {
    return locks_->Lock(file_id, want, test);
  }

  Status Sync(uint64_t file_id) override {
    BB_RETURN_IF_ERROR(chunks_->Sync(file_id));
    return meta_->Sync();
  }

  Result<SpaceStats> StatSpace() override {
    struct statvfs sv {};
    std::string dir = options_.root.empty() ? "/" : options_.root;
    if (::statvfs(dir.c_str(), &sv) != 0) {
      return Status(EIO, "statvfs " + dir + ": " + std::strerror(errno));
    }
    SpaceStats s;
    s.block_size = sv.f_frsize;
    uint64_t reserve_blocks = options_.reserve_bytes / sv.f_frsize;
    s.total_blocks = sv.f_blocks;
    s.free_blocks = sv.f_bfree > reserve_blocks ? sv.f_bfree - reserve_blocks : 0;
    s.avail_blocks = sv.f_bavail > reserve_blocks ? sv.f_bavail - reserve_blocks : 0;
    return s;
  }

  Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) override {
    CountMeta();
    BB_RETURN_IF_ERROR(CheckSpace());
    std::string path = "/" + name;
    std::string key = DentryKey(path);
    std::lock_guard lock(Stripe(path));
    auto record = meta_->Get(WorkspaceKey(name));
    if (record) {
      BB_ASSIGN_OR_RETURN(WorkspaceSpec have, DecodeWorkspace(*record));
      if (!(have == spec)) return Status(EEXIST, "workspace " + name + " exists with another layout");
    } else if (record.error().code() != ENOENT) {
      return record.error();
    } else {
      auto existing = meta_->Get(key);
      if (existing) return Status(EEXIST, path + " exists and is not a workspace");
      if (existing.error().code() != ENOENT) return existing.error();
      WriteBatch batch;
      batch.Put(WorkspaceKey(name), EncodeWorkspace(spec));
      batch.Put(key, EncodeMetadata(root));
      BB_RETURN_IF_ERROR(meta_->Write(batch, /*sync=*/true));
    }
    if (options_.workspaces) options_.workspaces->Set(name, spec);
    return Status::Ok();
  }

  Status DropWorkspace(const std::string& name) override {
    CountMeta();
    std::string path = "/" + name;
    std::lock_guard lock(Stripe(path));
    if (options_.workspaces) options_.workspaces->Erase(name);
    WriteBatch batch;
    batch.Delete(WorkspaceKey(name));
    batch.Delete(DentryKey(path));
    return meta_->Write(batch, /*sync=*/true);
  }

  // Keys below `dir` are 'D' | depth | path with depth > depth(dir); each depth is one prefix.
  Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) override {
    CountMeta();
    PurgePage page;
    WriteBatch batch;
    std::string base = dir == "/" ? "" : dir;
    size_t depth = dir == "/" ? 0 : static_cast<size_t>(std::count(dir.begin(), dir.end(), '/'));
    for (size_t d = depth + 1; d <= kPathMax / 2 && batch.ops.size() < limit; ++d) {
      std::string prefix = {'D', static_cast<char>(d >> 8), static_cast<char>(d & 0xff)};
      prefix += base + "/";
      BB_ASSIGN_OR_RETURN(auto kvs, meta_->Scan(prefix, "", limit - batch.ops.size()));
      for (auto& [key, value] : kvs) {
        auto md = DecodeMetadata(value);
        if (md && md->type == FileType::kRegular) page.file_ids.push_back(md->file_id);
        batch.Delete(key);
      }
    }
    page.removed = static_cast<uint32_t>(batch.ops.size());
    page.more = page.removed >= limit;
    if (!batch.ops.empty()) BB_RETURN_IF_ERROR(meta_->Write(batch, false));
    return page;
  }

  // No kernel here: a CoherentView in front of this service passes invalidations to its own.
  Status Invalidate(const std::vector<Invalidation>&) override { return Status::Ok(); }

  Status RemoveFiles(const std::vector<uint64_t>& file_ids) override {
    Status first;
    for (uint64_t id : file_ids) {
      Status s = chunks_->Remove(id);
      if (!s.ok() && first.ok()) first = s;
    }
    return first;
  }

 private:
  // CreateMeta, where an entry of the same file already there (sent again after a failed
  // request, or stored from a hand-over) counts as made.
  // An entry made on a name reserved when there was room for it (ReserveName): not refused for
  // space now, or a file whose create returned would be lost.
  Status MakeEntry(const MadeEntry& e) {
    CountMeta();
    Status s = CreateEntry(e.path, e.md);
    if (s.code() != EEXIST) return s;
    auto have = GetMeta(e.path);
    return have && have->file_id == e.md.file_id ? Status::Ok() : s;
  }

  void CountMeta() {
    if (options_.stats) options_.stats->served().meta_ops.fetch_add(1, std::memory_order_relaxed);
  }
  void CountData(uint64_t read, uint64_t written) {
    if (!options_.stats) return;
    auto& s = options_.stats->served();
    s.data_ops.fetch_add(1, std::memory_order_relaxed);
    if (read) s.read_bytes.fetch_add(read, std::memory_order_relaxed);
    if (written) s.write_bytes.fetch_add(written, std::memory_order_relaxed);
  }

  static Result<Metadata> Decode(const std::string& path, std::string_view value) {
    auto md = DecodeMetadata(value);
    if (!md) return md.error().Annotate("entry " + path);
    return md;
  }

  Status CheckSpace() {
    if (options_.reserve_bytes == 0) return Status::Ok();
    return guard_.Check(4096);
  }

  static size_t StripeIndex(const std::string& path) { return PlacementHash(path) % kStripes; }
  std::mutex& Stripe(const std::string& path) { return stripes_[StripeIndex(path)]; }

  MetaStore* const meta_;
  ChunkStore* const chunks_;
  const LocalNodeOptions options_;
  SpaceGuard guard_;                          // metadata writes: the lower half of the reserve
  std::array<std::mutex, kStripes> stripes_;  // each serializes read-modify-write of its paths
  LockTables own_locks_;
  LockTables* const locks_ = options_.locks != nullptr ? options_.locks : &own_locks_;
};

}  // namespace

Result<NodeService::Removed> RemoveMetaThenChunks(NodeService& s, const std::string& path, uint64_t file_id) {
  NodeService::Removed r;
  BB_ASSIGN_OR_RETURN(r.entry, s.RemoveMeta(path));
  const Metadata& md = r.entry;
  if (md.file_id == file_id && md.type == FileType::kRegular && md.link == LinkRole::kNone &&
      DataExtent(md) <= md.chunk_size) {
    r.data_gone = s.RemoveChunks(file_id).ok();  // else the caller removes them as usual
  }
  return r;
}

Result<std::optional<Metadata>> WriteChunkThenUpdate(NodeService& s, uint64_t file_id, uint64_t chunk_size,
                                                     uint64_t index, uint64_t offset, std::span<const char> data,
                                                     const std::string& path, const MetaUpdate& update,
                                                     const std::optional<Metadata>& make) {
  BB_RETURN_IF_ERROR(s.WriteChunk(file_id, chunk_size, index, offset, data));
  if (make) {
    // The data first: an entry, once there, names data that is there.
    BB_ASSIGN_OR_RETURN(std::vector<int> made, s.MakeEntries({{path, *make}}, {}));
    int code = made.empty() ? EIO : made.front();
    if (code == 0) return std::optional<Metadata>(*make);
    if (code == EEXIST) (void)s.RemoveChunks(file_id);  // the name is another file's: this one has no name
    return Status(code, path + ": the entry made with the file's first write was refused");
  }
  if (!update.if_file_id) return std::optional<Metadata>();  // only ever for the file's own entry
  auto md = s.UpdateMeta(path, update);
  if (!md) return std::optional<Metadata>();
  return std::optional<Metadata>(std::move(*md));
}

std::unique_ptr<NodeService> NewLocalNodeService(MetaStore* meta, ChunkStore* chunks, LocalNodeOptions options) {
  return std::make_unique<LocalNodeService>(meta, chunks, std::move(options));
}

}  // namespace bb::fs
