// Test support for the core: a cluster of in-process nodes. Each node has its own stores, router,
// statistics and FileSystem; nodes call each other's services directly (the same NodeService the
// transport carries), so the statistics say where work actually went.
#pragma once

#include <fcntl.h>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fs/core/coherence/coherence.h"
#include "fs/core/coherence/coherent_view.h"
#include "fs/core/file_system.h"
#include "fs/core/placement/workspace.h"
#include "fs/core/service/lock_recovery.h"

namespace bb::fs::testing {

// The four layout modes with the names tests report them by.
constexpr struct {
  LayoutMode mode;
  const char* name;
} kModes[] = {{LayoutMode::kNodeLocal, "mode 1"},
              {LayoutMode::kCentralizedMeta, "mode 2"},
              {LayoutMode::kHashed, "mode 3"},
              {LayoutMode::kHybrid, "mode 4"}};

constexpr uint32_t kChunk = 4096;

// A chunk store that passes every call to another one; tests derive from it and override only
// the calls they watch or change.
class ForwardingChunkStore : public ChunkStore {
 public:
  explicit ForwardingChunkStore(std::unique_ptr<ChunkStore> inner) : inner_(std::move(inner)) {}
  Status Write(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
               std::span<const char> data) override {
    return inner_->Write(file_id, chunk_size, index, offset, data);
  }
  Result<size_t> Read(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                      std::span<char> buf) override {
    return inner_->Read(file_id, chunk_size, index, offset, buf);
  }
  Status Allocate(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Allocate(file_id, chunk_size, index, offset, length);
  }
  Status Zero(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length) override {
    return inner_->Zero(file_id, chunk_size, index, offset, length);
  }
  Status Truncate(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return inner_->Truncate(file_id, size, chunk_size);
  }
  Status Remove(uint64_t file_id) override { return inner_->Remove(file_id); }
  Status Sync(uint64_t file_id) override { return inner_->Sync(file_id); }

 private:
  std::unique_ptr<ChunkStore> inner_;
};
// A node service that passes every call to another one; tests derive from it and override only
// the calls they watch or hold.
class ForwardingNodeService : public NodeService {
 public:
  explicit ForwardingNodeService(std::unique_ptr<NodeService> inner) : inner_(std::move(inner)) {}
  Result<Metadata> GetMeta(const std::string& path) override { return inner_->GetMeta(path); }
  Result<NameLookup> ReserveName(const std::string& path) override { return inner_->ReserveName(path); }
  Status CreateMeta(const std::string& path, const Metadata& md) override { return inner_->CreateMeta(path, md); }
  Status PutMeta(const std::string& path, const Metadata& md) override { return inner_->PutMeta(path, md); }
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& update) override {
    return inner_->UpdateMeta(path, update);
  }
  Result<Metadata> RemoveMeta(const std::string& path) override { return inner_->RemoveMeta(path); }
  Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) override {
    return inner_->RemoveFile(path, file_id);
  }
  Result<Metadata> MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) override {
    return inner_->MoveMeta(from, to, ctime_ns);
  }
  Result<Metadata> MoveOutMeta(const std::string& from, const std::string& to) override {
    return inner_->MoveOutMeta(from, to);
  }
  Result<DirPage> ListDir(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    return inner_->ListDir(dir, start_after, limit);
  }
  Result<DirAttrPage> ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    return inner_->ListAttrs(dir, start_after, limit);
  }
  Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made,
                                       const std::vector<NameGrant>& released) override {
    return inner_->MakeEntries(made, released);
  }
  Result<std::vector<MadeEntry>> HandOver(const std::vector<std::string>& paths) override {
    return inner_->HandOver(paths);
  }
  Result<DirLease> LeaseDir(const std::string& dir, uint64_t renew) override { return inner_->LeaseDir(dir, renew); }
  Result<std::vector<MadeEntry>> HandOverDir(const std::string& dir) override { return inner_->HandOverDir(dir); }
  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    return inner_->WriteChunk(file_id, chunk_size, index, offset, data);
  }
  Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                          std::span<const ChunkRange> ranges) override {
    return inner_->WriteChunkRanges(file_id, chunk_size, index, ranges);
  }
  Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                      uint64_t offset, std::span<const char> data,
                                                      const std::string& path, const MetaUpdate& update,
                                                      const std::optional<Metadata>& make) override {
    return inner_->WriteChunkAndUpdate(file_id, chunk_size, index, offset, data, path, update, make);
  }
  Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                           std::span<char> buf) override {
    return inner_->ReadChunk(file_id, chunk_size, index, offset, buf);
  }
  Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       uint64_t length) override {
    return inner_->AllocateChunk(file_id, chunk_size, index, offset, length);
  }
  Status ZeroChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length,
                   bool allocate) override {
    return inner_->ZeroChunk(file_id, chunk_size, index, offset, length, allocate);
  }
  Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return inner_->TruncateChunks(file_id, size, chunk_size);
  }
  Status RemoveChunks(uint64_t file_id) override { return inner_->RemoveChunks(file_id); }
  Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test) override {
    return inner_->Lock(file_id, want, test);
  }
  Result<HeldLockPage> HeldLocks(uint64_t after, uint32_t limit) override { return inner_->HeldLocks(after, limit); }
  Status Sync(uint64_t file_id) override { return inner_->Sync(file_id); }
  Result<SpaceStats> StatSpace() override { return inner_->StatSpace(); }
  Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) override {
    return inner_->PutWorkspace(name, spec, root);
  }
  Status DropWorkspace(const std::string& name) override { return inner_->DropWorkspace(name); }
  Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) override { return inner_->PurgeTree(dir, limit); }
  Status RemoveFiles(const std::vector<uint64_t>& file_ids) override { return inner_->RemoveFiles(file_ids); }
  Status Invalidate(const std::vector<Invalidation>& items) override { return inner_->Invalidate(items); }

 private:
  std::unique_ptr<NodeService> inner_;
};
const Caller kUser{1000, 1000, 1};

// `options` apply to every node (chunk_size defaults to kChunk); `chunks(i)` makes node i's
// chunk store (default: an in-memory one). With options.attr_cache_ns > 0 the nodes keep each
// other's caches coherent as daemons do (fs/core/coherence/coherence.h): node i reaches node j's store
// through a CoherentView as caller i, and what a node is told reaches its core (Invalidated)
// and its `told` list (its kernel's).
struct Cluster {
  using ChunkStoreMaker = std::function<std::unique_ptr<ChunkStore>(uint32_t node)>;
  // Wraps node i's service (the one every node reaches it by), e.g. in a ForwardingNodeService.
  using ServiceWrapper = std::function<std::unique_ptr<NodeService>(uint32_t node, std::unique_ptr<NodeService>)>;

  struct Member {
    std::unique_ptr<MetaStore> meta = NewMemoryMetaStore();
    std::unique_ptr<ChunkStore> chunks;
    std::unique_ptr<WorkspaceRouter> router;
    std::unique_ptr<NodeStats> stats;
    std::unique_ptr<LockTables> locks;  // the ones it keeps, lost with its "daemon" (Assemble)
    std::unique_ptr<NodeService> service;
    std::unique_ptr<FileIdAllocator> ids;
    std::unique_ptr<FileSystem> fs;
    // Coherent clusters only: the callbacks of this node's entries, and its store as seen by
    // each caller (as[c]: as node c).
    std::unique_ptr<Coherence> coherence;
    std::vector<std::unique_ptr<CoherentView>> as;
    std::mutex told_mu;
    std::vector<Invalidation> told;  // guarded by told_mu
  };

  explicit Cluster(uint32_t n, FileSystemOptions o = Defaults(), const ChunkStoreMaker& chunks = nullptr,
                   ServiceWrapper wrap = nullptr)
      : options(o), wrap_service(std::move(wrap)), members(n) {
    for (uint32_t i = 0; i < n; ++i) members[i].chunks = chunks ? chunks(i) : NewMemoryChunkStore();
    for (uint32_t i = 0; i < n; ++i) Assemble(i);
    for (auto& m : members) REQUIRE(m.fs->Init(kUser).ok());
  }
  // Every node's core goes before any node's service: a core sends what it still has to others
  // as it stops (its directories' pending changes).
  ~Cluster() {
    for (auto& m : members) m.fs.reset();
  }

  // (Re)builds node i's router, service and core over its existing stores.
  void Assemble(uint32_t i) {
    Member& m = members[i];
    uint32_t n = static_cast<uint32_t>(members.size());
    m.fs.reset();
    m.router = std::make_unique<WorkspaceRouter>(WorkspaceSpec{{}, kChunk}, NodeView{n, i});
    REQUIRE(LoadWorkspaces(m.meta.get(), m.router.get()).ok());
    m.stats = std::make_unique<NodeStats>(n);
    auto locks = std::make_unique<LockTables>();
    m.service = NewLocalNodeService(m.meta.get(), m.chunks.get(), {"", 0, m.router.get(), m.stats.get(), locks.get()});
    m.locks = std::move(locks);
    if (wrap_service) m.service = wrap_service(i, std::move(m.service));
    m.ids = std::make_unique<FileIdAllocator>(m.meta.get(), i);
    NodeResolver resolve = [this](NodeId id) { return members[id].service.get(); };
    if (coherent()) {
      m.coherence = std::make_unique<Coherence>(NodeView{n, i}, options.attr_cache_ns + 1'000'000'000, &clock,
                                                [this, i](NodeId to) { return members[to].as[i].get(); });
      m.as.clear();
      for (uint32_t c = 0; c < n; ++c) {
        m.as.push_back(std::make_unique<CoherentView>(m.service.get(), m.coherence.get(), c));
      }
      m.coherence->SetKernel([this, i](const std::vector<Invalidation>& items) {
        Member& me = members[i];
        if (me.fs) me.fs->Invalidated(items);
        std::lock_guard lock(me.told_mu);
        me.told.insert(me.told.end(), items.begin(), items.end());
      });
      resolve = [this, i](NodeId id) { return static_cast<NodeService*>(members[id].as[i].get()); };
    }
    m.fs = std::make_unique<FileSystem>(options, m.router.get(), resolve, m.ids.get(), &clock, m.stats.get());
    if (m.coherence) {
      m.coherence->SetHandOver(
          [this, i](const std::vector<std::string>& paths, NodeId owner) {
            return members[i].fs ? members[i].fs->HandOver(paths, owner) : std::vector<MadeEntry>{};
          },
          [this, i](const std::string& dir, NodeId owner) {
            return members[i].fs ? members[i].fs->HandOverDir(dir, owner) : std::vector<MadeEntry>{};
          },
          [this, i](NodeId owner) {
            if (members[i].fs) members[i].fs->OwnerReset(owner);
          },
          [this, i](NodeId keeper, uint64_t after, uint32_t limit) {
            return members[i].fs ? members[i].fs->HeldLocksKeptBy(keeper, after, limit) : HeldLockPage{};
          });
    }
  }
  // What a daemon of node i does for locks as it starts (after Assemble(i)): RecoverLocks.
  LockRecovery RecoverLocksOf(uint32_t i) {
    uint32_t n = static_cast<uint32_t>(members.size());
    return RecoverLocks(
        NodeView{n, i},
        [this, i](NodeId id) -> NodeService* {
          return coherent() ? static_cast<NodeService*>(members[id].as[i].get()) : members[id].service.get();
        },
        members[i].locks.get());
  }
  bool coherent() const { return options.attr_cache_ns > 0; }

  FileSystem& fs(uint32_t i) { return *members[i].fs; }
  NodeStats& stats(uint32_t i) { return *members[i].stats; }

  // Creates `path` (under an existing directory chain) on node i with `data`; returns its inode.
  uint64_t Write(uint32_t i, const std::string& dir, const std::string& name, const std::string& data) {
    uint64_t parent = Walk(i, dir);
    auto cr = fs(i).Create(parent, name, 0644, O_RDWR, kUser);
    REQUIRE(cr.has_value());
    REQUIRE(fs(i).Write(cr->second, 0, {data.data(), data.size()}).has_value());
    REQUIRE(fs(i).Release(cr->second).ok());
    return cr->first.ino;
  }

  Result<std::string> Read(uint32_t i, const std::string& dir, const std::string& name) {
    uint64_t parent = Walk(i, dir);
    BB_ASSIGN_OR_RETURN(Entry e, fs(i).Lookup(parent, name));
    BB_ASSIGN_OR_RETURN(OpenFile * f, fs(i).Open(e.ino, O_RDONLY, kUser));
    std::string buf(e.md.size, '\0');
    auto n = fs(i).Read(f, 0, {buf.data(), buf.size()});
    (void)fs(i).Release(f);
    if (!n) return n.error();
    buf.resize(*n);
    return buf;
  }

  // The inode of directory `dir` ("/a/b") on node i, looked up component by component.
  uint64_t Walk(uint32_t i, const std::string& dir) {
    uint64_t ino = kRootFileId;
    size_t pos = 1;
    while (pos < dir.size()) {
      size_t next = dir.find('/', pos);
      if (next == std::string::npos) next = dir.size();
      auto e = fs(i).Lookup(ino, dir.substr(pos, next - pos));
      REQUIRE(e.has_value());
      ino = e->ino;
      pos = next + 1;
    }
    return ino;
  }

  // The names directory `ino` lists on node i, "." and ".." left out.
  std::vector<std::string> List(uint32_t i, uint64_t ino) {
    auto d = fs(i).OpenDir(ino);
    REQUIRE(d.has_value());
    std::vector<std::string> names;
    for (uint64_t k = 2;; ++k) {
      auto e = fs(i).DirEntryAt(*d, k);
      REQUIRE(e.has_value());
      if (!e->has_value()) break;
      names.push_back((*e)->name);
    }
    fs(i).ReleaseDir(*d);
    return names;
  }

  uint64_t MetaTo(uint32_t from, uint32_t to) { return stats(from).to(to).meta_requests.load(); }
  uint64_t WrittenTo(uint32_t from, uint32_t to) { return stats(from).to(to).write_bytes.load(); }
  uint64_t ReadFrom(uint32_t from, uint32_t to) { return stats(from).to(to).read_bytes.load(); }

  static FileSystemOptions Defaults() {
    FileSystemOptions o;
    o.chunk_size = kChunk;
    return o;
  }
  // Defaults with attributes cached 5 s: owners keep callbacks, so a node is told what other
  // nodes change of what it read (a coherent cluster).
  static FileSystemOptions Coherent() {
    FileSystemOptions o = Defaults();
    o.attr_cache_ns = 5'000'000'000;
    return o;
  }
  // Node i's metadata owner of `path` (its router's layout).
  NodeId OwnerOf(uint32_t i, const std::string& path) { return members[i].router->Resolve(path).MetaNode(path); }

  FileSystemOptions options;
  ServiceWrapper wrap_service;
  ManualClock clock;
  std::vector<Member> members;
};

}  // namespace bb::fs::testing
