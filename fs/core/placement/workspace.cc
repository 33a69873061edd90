#include "fs/core/placement/workspace.h"

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
  const ModeInfo* mode = FindMode(static_cast<int64_t>(GetLe(bytes, 1, 1)));
  if (mode == nullptr) return Status(EIO, "workspace record with mode " + std::to_string(GetLe(bytes, 1, 1)));
  s.layout.mode = mode->mode;
  s.layout.metadata_server_ratio = std::bit_cast<double>(GetLe(bytes, 2, 8));
  s.chunk_size = static_cast<uint32_t>(GetLe(bytes, 10, 4));
  if (Status valid = ValidateSpec(s); !valid.ok()) return Status(EIO, "workspace record: " + valid.message());
  return s;
}

Status ValidateWorkspaceName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") {
    return Status(EINVAL, "a workspace name must be 1 to 255 characters and not '.' or '..'");
  }
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status(EINVAL,
                    "workspace name '" + std::string(name) + "' may hold only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

WorkspaceRouter::WorkspaceRouter(WorkspaceSpec instance, NodeView view) : instance_(instance), view_(view) {}

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

PathLayout WorkspaceRouter::Resolve(std::string_view path) const {
  PathLayout l{{}, instance_, path == "/", view_};
  if (!any_.load(std::memory_order_acquire) || path.size() < 2) return l;
  bool deeper;
  std::string_view first = FirstComponent(path, &deeper);
  std::shared_lock lock(mu_);
  auto it = table_.find(first);
  if (it == table_.end()) return l;
  l.domain = it->first;
  l.spec = it->second;
  l.replicated = !deeper;  // the workspace's root entry itself
  return l;
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
