#include "fs/core/coherence.h"

#include <algorithm>
#include <map>

namespace bb::fs {

// ---- CallbackTable ----

void CallbackTable::RotateLocked(int64_t now) {
  if (now - rotated_ns_ < hold_ns_) return;
  // Two holds since the last rotation: both generations are old enough to go.
  if (now - rotated_ns_ >= 2 * hold_ns_) {
    previous_.clear();
  } else {
    previous_.swap(current_);
  }
  current_.clear();
  rotated_ns_ = now;
}

void CallbackTable::Register(const std::string& path, NodeId holder) {
  if (!active()) return;
  std::lock_guard lock(mu_);
  RotateLocked(clock_->MonotonicNs());
  std::vector<NodeId>& holders = current_[path];
  if (std::find(holders.begin(), holders.end(), holder) == holders.end()) holders.push_back(holder);
}

std::vector<NodeId> CallbackTable::Take(const std::string& path, NodeId except) {
  std::vector<NodeId> out;
  if (!active()) return out;
  std::lock_guard lock(mu_);
  RotateLocked(clock_->MonotonicNs());
  bool keep = false;
  for (Generation* g : {&current_, &previous_}) {
    auto it = g->find(path);
    if (it == g->end()) continue;
    for (NodeId n : it->second) {
      if (n == except) {
        keep = true;
      } else if (std::find(out.begin(), out.end(), n) == out.end()) {
        out.push_back(n);
      }
    }
    g->erase(it);
  }
  if (keep) current_[path].push_back(except);
  return out;
}

size_t CallbackTable::size() const {
  std::lock_guard lock(mu_);
  return current_.size() + previous_.size();
}

// ---- Coherence ----

void Coherence::SetKernel(KernelInvalidator kernel) {
  std::unique_lock lock(kernel_mu_);
  kernel_ = std::move(kernel);
}

void Coherence::ToKernel(const std::vector<Invalidation>& items) {
  stats_.received.fetch_add(items.size(), std::memory_order_relaxed);
  std::shared_lock lock(kernel_mu_);
  if (kernel_) kernel_(items);
}

void Coherence::Tell(const std::vector<Invalidation>& items, NodeId caller) {
  if (!table_.active()) return;
  std::map<NodeId, std::vector<Invalidation>> by_node;
  for (const Invalidation& item : items) {
    for (NodeId n : table_.Take(item.path, caller)) by_node[n].push_back(item);
  }
  for (auto& [node, list] : by_node) {
    if (node == view_.self) {
      ToKernel(list);
      continue;
    }
    stats_.sent.fetch_add(list.size(), std::memory_order_relaxed);
    NodeService* peer = peers_ ? peers_(node) : nullptr;
    Status s = peer ? peer->Invalidate(list) : Status(EHOSTUNREACH, "no such node");
    if (!s.ok()) {
      // A node that does not answer in time has lost its kernel (it died) or is stuck; its
      // cache expires within the timeout either way (counted: bbctl stats).
      stats_.failed.fetch_add(list.size(), std::memory_order_relaxed);
    }
  }
}

// ---- CoherentView ----

bool ChangesCachedAttributes(const MetaUpdate& u) {
  MetaUpdate rest = u;
  rest.touch_ns.reset();
  rest.subdirs.reset();
  return rest != MetaUpdate{};
}

Result<Metadata> CoherentView::GetMeta(const std::string& path) {
  Register(path);  // before the read: a change after it tells this caller
  return local_->GetMeta(path);
}

// The names are registered once read, and their entries read again after: an entry that changed
// between the first read and its registration was told to nobody, and the second read sees the
// change. Only entries of both reads are returned (each registered before it was read).
Result<DirAttrPage> CoherentView::ListAttrs(const std::string& dir, const std::string& start_after, uint32_t limit) {
  BB_ASSIGN_OR_RETURN(DirAttrPage first, local_->ListAttrs(dir, start_after, limit));
  std::string base = dir == "/" ? dir : dir + "/";
  if (first.entries.empty() || !c_->Tracks(caller_, base + first.entries.front().name)) return first;
  for (const DirAttrEntry& e : first.entries) c_->table().Register(base + e.name, caller_);
  BB_ASSIGN_OR_RETURN(DirAttrPage second, local_->ListAttrs(dir, start_after, limit));
  DirAttrPage out;
  out.last = first.last;
  out.end = first.end;
  auto registered = first.entries.begin();
  for (DirAttrEntry& e : second.entries) {
    if (e.name > first.last) break;
    while (registered != first.entries.end() && registered->name < e.name) ++registered;
    if (registered != first.entries.end() && registered->name == e.name) out.entries.push_back(std::move(e));
  }
  return out;
}

Status CoherentView::CreateMeta(const std::string& path, const Metadata& md) {
  Register(path);
  return local_->CreateMeta(path, md);
}

// A change registers its caller first, as a read does: its reply is cached too, and a change
// by another node right after must find the registration.
Status CoherentView::PutMeta(const std::string& path, const Metadata& md) {
  Register(path);
  Status s = local_->PutMeta(path, md);
  if (s.ok()) c_->Tell({{path, true}}, caller_);
  return s;
}

Result<Metadata> CoherentView::UpdateMeta(const std::string& path, const MetaUpdate& update) {
  // A directory's entry changes, sent by any node, tell nobody and register nothing.
  if (!ChangesCachedAttributes(update)) return local_->UpdateMeta(path, update);
  Register(path);
  auto r = local_->UpdateMeta(path, update);
  if (r) c_->Tell({{path, false}}, caller_);
  return r;
}

Result<Metadata> CoherentView::RemoveMeta(const std::string& path) {
  auto r = local_->RemoveMeta(path);
  if (r) c_->Tell({{path, true}}, caller_);
  return r;
}

Result<Metadata> CoherentView::MoveMeta(const std::string& from, const std::string& to) {
  Register(to);
  auto r = local_->MoveMeta(from, to);
  if (r) c_->Tell({{from, true}, {to, true}}, caller_);
  return r;
}

Status CoherentView::DropWorkspace(const std::string& name) {
  Status s = local_->DropWorkspace(name);
  // Every node is asked to drop it: each drops the workspace's name (and so everything below
  // it) from its own kernel.
  if (s.ok()) c_->ToKernel({{"/" + name, true}});
  return s;
}

Status CoherentView::Invalidate(const std::vector<Invalidation>& items) {
  c_->ToKernel(items);
  return Status::Ok();
}

}  // namespace bb::fs
