// The client side: a NodeService whose every method is one call of its op (node_ops.h).
#include "fs/rpc/node_ops.h"
#include "fs/rpc/node_rpc.h"

namespace bb::fs {
namespace {

using namespace rpc;

class RemoteNodeService final : public NodeService {
 public:
  RemoteNodeService(transport::Transport* t, transport::NodeId node, std::chrono::milliseconds d)
      : t_(t), node_(node), deadline_(d) {}

  Result<Metadata> GetMeta(const std::string& path) override { return Meta<rpc::GetMeta>({path}); }
  Result<NameLookup> ReserveName(const std::string& path) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::ReserveName>({path}));
    return rpc::ReserveName::DecodeReply(r.payload);
  }
  Result<std::vector<int>> MakeEntries(const std::vector<MadeEntry>& made,
                                       const std::vector<NameGrant>& released) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::MakeEntries>({made, released}));
    return rpc::MakeEntries::DecodeReply(r.payload, made.size());
  }
  Result<std::vector<MadeEntry>> HandOver(const std::vector<std::string>& paths) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::HandOver>({paths}));
    return rpc::HandOver::DecodeReply(r.payload, paths);
  }
  Result<DirLease> LeaseDir(const std::string& dir, uint64_t renew) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::LeaseDir>({dir, renew}));
    return rpc::LeaseDir::DecodeReply(r.payload);
  }
  Result<std::vector<MadeEntry>> HandOverDir(const std::string& dir) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::HandOverDir>({dir}));
    return rpc::HandOverDir::DecodeReply(r.payload, dir);
  }
  Status CreateMeta(const std::string& path, const Metadata& md) override {
    return Call<rpc::CreateMeta>({path, EncodeMetadata(md)}).status();
  }
  Status PutMeta(const std::string& path, const Metadata& md) override {
    return Call<rpc::PutMeta>({path, EncodeMetadata(md)}).status();
  }
  Result<Metadata> UpdateMeta(const std::string& path, const MetaUpdate& u) override {
    return Meta<rpc::UpdateMeta>({path, EncodeUpdate(u)});
  }
  Result<Metadata> RemoveMeta(const std::string& path) override { return Meta<rpc::RemoveMeta>({path}); }
  Result<Removed> RemoveFile(const std::string& path, uint64_t file_id) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::RemoveFile>({path, file_id}));
    return rpc::RemoveFile::DecodeReply(r.payload);
  }
  Result<Metadata> MoveMeta(const std::string& from, const std::string& to, int64_t ctime_ns) override {
    return Meta<rpc::MoveMeta>({from, to, ctime_ns});
  }
  Result<Metadata> MoveOutMeta(const std::string& from, const std::string& to) override {
    return Meta<rpc::MoveOutMeta>({from, to});
  }
  Result<DirPage> ListDir(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::ListDir>({dir, start_after, limit}));
    return rpc::ListDir::DecodeReply(r.payload, limit);
  }
  Result<DirAttrPage> ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::ListAttrs>({dir, start_after, limit}));
    return rpc::ListAttrs::DecodeReply(r.payload, limit);
  }

  Status WriteChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                    std::span<const char> data) override {
    return Call<rpc::WriteChunk>({file_id, chunk_size, index, offset}, data).status();
  }
  // Groups of at most kMaxRanges ranges, each group's data copied into one bulk part.
  Status WriteChunkRanges(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                          std::span<const ChunkRange> ranges) override {
    if (ranges.size() == 1) return WriteChunk(file_id, chunk_size, index, ranges[0].offset, ranges[0].data);
    for (size_t first = 0; first < ranges.size(); first += rpc::WriteChunkRanges::kMaxRanges) {
      auto group = ranges.subspan(first, std::min<size_t>(ranges.size() - first, rpc::WriteChunkRanges::kMaxRanges));
      rpc::WriteChunkRanges::Request q{file_id, chunk_size, index, {}};
      std::string bulk;
      for (const ChunkRange& r : group) {
        q.ranges.emplace_back(r.offset, r.data.size());
        bulk.append(r.data.data(), r.data.size());
      }
      BB_RETURN_IF_ERROR(Call<rpc::WriteChunkRanges>(q, bulk).status());
    }
    return Status::Ok();
  }
  Result<std::optional<Metadata>> WriteChunkAndUpdate(uint64_t file_id, uint64_t chunk_size, uint64_t index,
                                                      uint64_t offset, std::span<const char> data,
                                                      const std::string& path, const MetaUpdate& u,
                                                      const std::optional<Metadata>& make) override {
    BB_ASSIGN_OR_RETURN(
        auto r,
        Call<rpc::WriteChunkAndUpdate>(
            {{file_id, chunk_size, index, offset}, path, EncodeUpdate(u), make ? EncodeMetadata(*make) : std::string()},
            data));
    return rpc::WriteChunkAndUpdate::DecodeReply(r.payload);
  }
  Result<size_t> ReadChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                           std::span<char> buf) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::ReadChunk>({file_id, chunk_size, index, offset, buf.size()}, {}, buf));
    return r.bulk_size;
  }
  Status ZeroChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset, uint64_t length,
                   bool allocate) override {
    return Call<rpc::ZeroChunk>({file_id, chunk_size, index, offset, length, allocate}).status();
  }
  Status AllocateChunk(uint64_t file_id, uint64_t chunk_size, uint64_t index, uint64_t offset,
                       uint64_t length) override {
    return Call<rpc::AllocateChunk>({file_id, chunk_size, index, offset, length}).status();
  }
  Status TruncateChunks(uint64_t file_id, uint64_t size, uint64_t chunk_size) override {
    return Call<rpc::TruncateChunks>({file_id, size, chunk_size}).status();
  }
  Status RemoveChunks(uint64_t file_id) override { return Call<rpc::RemoveChunks>({file_id}).status(); }
  Result<std::optional<RangeLock>> Lock(uint64_t file_id, const RangeLock& want, bool test) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::Lock>({file_id, want, test}));
    return rpc::Lock::DecodeReply(r.payload);
  }
  Result<HeldLockPage> HeldLocks(uint64_t after, uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::HeldLocks>({after, limit}));
    return rpc::HeldLocks::DecodeReply(r.payload, limit);
  }
  Status Sync(uint64_t file_id) override { return Call<rpc::SyncFile>({file_id}).status(); }
  Result<SpaceStats> StatSpace() override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::StatSpace>({}));
    return rpc::StatSpace::DecodeReply(r.payload);
  }

  Status PutWorkspace(const std::string& name, const WorkspaceSpec& spec, const Metadata& root) override {
    return Call<rpc::PutWorkspace>({name, EncodeWorkspace(spec), EncodeMetadata(root)}).status();
  }
  Status DropWorkspace(const std::string& name) override { return Call<rpc::DropWorkspace>({name}).status(); }
  Result<PurgePage> PurgeTree(const std::string& dir, uint32_t limit) override {
    BB_ASSIGN_OR_RETURN(auto r, Call<rpc::PurgeTree>({dir, limit}));
    return rpc::PurgeTree::DecodeReply(r.payload, limit);
  }
  Status RemoveFiles(const std::vector<uint64_t>& ids) override { return Call<rpc::RemoveFiles>({ids}).status(); }
  Status Invalidate(const std::vector<Invalidation>& items) override { return Call<rpc::Invalidate>({items}).status(); }

 private:
  // The reply of `Op` when its status is 0; the remote error (or the transport's) otherwise.
  template <class Op>
  Result<transport::CallResult> Call(const typename Op::Request& request, std::span<const char> bulk_out = {},
                                     std::span<char> bulk_in = {}) {
    Writer w;
    Op::Encode(w, request);
    auto r = t_->Call(node_, static_cast<uint16_t>(Op::kOp), w.Take(), bulk_out, bulk_in, deadline_);
    if (!r) return r.error().Annotate("node " + std::to_string(node_));
    if (r->status != 0) return Status(r->status, r->payload);
    return std::move(*r);
  }
  template <class Op>
  Result<Metadata> Meta(const typename Op::Request& request) {
    BB_ASSIGN_OR_RETURN(auto r, Call<Op>(request));
    return DecodeMetadata(r.payload);
  }

  transport::Transport* const t_;
  const transport::NodeId node_;
  const std::chrono::milliseconds deadline_;
};

}  // namespace

std::unique_ptr<NodeService> NewRemoteNodeService(transport::Transport* transport, transport::NodeId node,
                                                  std::chrono::milliseconds deadline) {
  return std::make_unique<RemoteNodeService>(transport, node, deadline);
}

}  // namespace bb::fs
