#include "fs/core/workspace.h"

#include <bit>
#include <mutex>

#include "fs/store/metadata.h"

namespace bb::fs {
namespace {

// The first component of an absolute path ("" for "/"), and whether the path goes below it.
std::string_view FirstComponent(std::string_view path, bool* deeper) {
  std::string_view rest = path.substr(1);
  size_t slash = rest.find('/');
  *deeper = slash != std::string_view::npos;
  return *deeper ? rest.substr(0, slash) : rest;
}

void PutLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(in[at + i])) << (8 * i);
  return v;
}

constexpr size_t kRecordBytes = 1 + 1 + 8 + 4;

}  // namespace

std::string WorkspaceKey(std::string_view name) {
  std::string key(kWorkspaceKeyPrefix);
  key.append(name);
  return key;
}

std::string EncodeWorkspace(const WorkspaceSpec& spec) {
  std::string out;
  PutLe(out, kWorkspaceVersion, 1);
  PutLe(out, static_cast<uint8_t>(spec.layout.mode), 1);
  PutLe(out, std::bit_cast<uint64_t>(spec.layout.metadata_server_ratio), 8);
  PutLe(out, spec.chunk_size, 4);
  return out;
}

Result<WorkspaceSpec> DecodeWorkspace(std::string_view bytes) {
  if (bytes.size() != kRecordBytes) {
    return Status(EIO, "workspace record of " + std::to_string(bytes.size()) + " bytes (want " +
                           std::to_string(kRecordBytes) + ")");
  }
  if (GetLe(bytes, 0, 1) != kWorkspaceVersion) {
    return Status(EIO, "workspace record of unknown version " + std::to_string(GetLe(bytes, 0, 1)));
  }
  WorkspaceSpec s;
  uint64_t mode = GetLe(bytes, 1, 1);
  if (mode < 1 || mode > 4) return Status(EIO, "workspace record with mode " + std::to_string(mode));
  s.layout.mode = static_cast<LayoutMode>(mode);
  s.layout.metadata_server_ratio = std::bit_cast<double>(GetLe(bytes, 2, 8));
  if (!(s.layout.metadata_server_ratio > 0 && s.layout.metadata_server_ratio <= 1)) {
    return Status(EIO, "workspace record with metadata_server_ratio out of (0, 1]");
  }
  s.chunk_size = static_cast<uint32_t>(GetLe(bytes, 10, 4));
  if (s.chunk_size < 4096 || (s.chunk_size & (s.chunk_size - 1)) != 0) {
    return Status(EIO, "workspace record with chunk size " + std::to_string(s.chunk_size));
  }
  return s;
}

Status ValidateWorkspaceName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") {
    return Status(EINVAL, "a workspace name must be 1 to 255 characters and not '.' or '..'");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) {
      return Status(EINVAL, "workspace name '" + std::string(name) +
                                "' may hold only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

WorkspaceRouter::WorkspaceRouter(LayoutOptions instance, uint32_t chunk_size, NodeId self, uint32_t nodes)
    : instance_{instance, chunk_size}, self_(self), nodes_(nodes) {}

void WorkspaceRouter::Set(const std::string& name, const WorkspaceSpec& spec) {
  std::unique_lock lock(mu_);
  table_[name] = spec;
  any_.store(true, std::memory_order_release);
}

void WorkspaceRouter::Erase(const std::string& name) {
  std::unique_lock lock(mu_);
  table_.erase(name);
  any_.store(!table_.empty(), std::memory_order_release);
}

std::optional<WorkspaceSpec> WorkspaceRouter::Find(std::string_view name) const {
  std::shared_lock lock(mu_);
  auto it = table_.find(name);
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, WorkspaceSpec> WorkspaceRouter::List() const {
  std::shared_lock lock(mu_);
  return {table_.begin(), table_.end()};
}

WorkspaceSpec WorkspaceRouter::SpecFor(std::string_view path) const {
  if (!any_.load(std::memory_order_acquire) || path.size() < 2) return instance_;
  bool deeper;
  std::string_view first = FirstComponent(path, &deeper);
  if (!deeper) return instance_;  // "/" and "/name" itself follow the instance
  std::shared_lock lock(mu_);
  auto it = table_.find(first);
  return it == table_.end() ? instance_ : it->second;
}

NodeId WorkspaceRouter::MetaNode(std::string_view path) const {
  return MetaNodeFor(SpecFor(path).layout, nodes_, self_, path);
}

std::optional<WorkspaceSpec> WorkspaceRouter::RootSpec(std::string_view path) const {
  if (!any_.load(std::memory_order_acquire) || path.size() < 2) return std::nullopt;
  bool deeper;
  std::string_view first = FirstComponent(path, &deeper);
  if (deeper) return std::nullopt;
  return Find(first);
}

std::vector<NodeId> WorkspaceRouter::DirNodes(std::string_view dir) const {
  // The entries of a workspace's root are placed by the workspace's layout.
  auto root = RootSpec(dir);
  return DirNodesFor(root ? root->layout : SpecFor(dir).layout, nodes_, self_);
}

NodeId WorkspaceRouter::DataNodeAs(NodeId viewer, std::string_view path, uint64_t file_id, uint64_t index,
                                   uint32_t data_location) const {
  return DataNodeFor(SpecFor(path).layout, nodes_, viewer, file_id, index, data_location);
}

std::vector<NodeId> WorkspaceRouter::AllNodes() const {
  std::vector<NodeId> all(nodes_);
  for (uint32_t i = 0; i < nodes_; ++i) all[i] = i;
  return all;
}

bool WorkspaceRouter::Replicated(std::string_view path) const {
  return path == "/" || RootSpec(path).has_value();
}

std::string_view WorkspaceRouter::Domain(std::string_view path) const {
  if (!any_.load(std::memory_order_acquire) || path.size() < 2) return {};
  bool deeper;
  std::string_view first = FirstComponent(path, &deeper);
  std::shared_lock lock(mu_);
  return table_.find(first) != table_.end() ? first : std::string_view();
}

uint32_t WorkspaceRouter::ChunkSize(std::string_view path) const { return SpecFor(path).chunk_size; }

uint32_t WorkspaceRouter::NewDataLocation(std::string_view path) const {
  return SpecFor(path).layout.mode == LayoutMode::kHybrid ? self_ : kNoNode;
}

bool WorkspaceRouter::NodePrivate(std::string_view path) const {
  // The root of a node-local workspace counts as private too: its name never changes while
  // the workspace exists and its entries are this node's own; only a chmod/chown of it on
  // another node reaches this node's kernel late (within private_cache_timeout).
  auto root = RootSpec(path);
  return (root ? *root : SpecFor(path)).layout.mode == LayoutMode::kNodeLocal;
}

Status LoadWorkspaces(MetaStore* store, WorkspaceRouter* router) {
  std::string after;
  for (;;) {
    BB_ASSIGN_OR_RETURN(auto kvs, store->Scan(kWorkspaceKeyPrefix, after, 256));
    for (auto& [key, value] : kvs) {
      std::string name = key.substr(kWorkspaceKeyPrefix.size());
      auto spec = DecodeWorkspace(value);
      if (!spec) return spec.error().Annotate("workspace " + name);
      router->Set(name, *spec);
      after = name;
    }
    if (kvs.size() < 256) return Status::Ok();
  }
}

}  // namespace bb::fs
