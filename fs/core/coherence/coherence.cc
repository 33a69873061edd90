#include "fs/core/coherence/coherence.h"

#include <algorithm>
#include <map>

#include "fs/base/thread_name.h"

namespace bb::fs {

namespace {
constexpr size_t kBatch = 2048;  // invalidations per message
}  // namespace

Coherence::Coherence(NodeView view, int64_t hold_ns, const Clock* clock, NodeResolver peers, PathTest node_private,
                     size_t capacity, std::chrono::milliseconds catchup_every)
    : view_(view),
      table_(hold_ns, clock, capacity),
      peers_(std::move(peers)),
      node_private_(std::move(node_private)),
      names_(
          [this](NodeId holder, const std::vector<std::string>& paths) -> Result<std::vector<MadeEntry>> {
            NodeService* node = holder < view_.nodes && holder != view_.self ? peers_(holder) : nullptr;
            if (node == nullptr) return Status(EHOSTUNREACH, "no node " + std::to_string(holder) + " to ask");
            return node->HandOver(paths);
          },
          clock,
          [this](NodeId holder, const std::string& dir) -> Result<std::vector<MadeEntry>> {
            NodeService* node = holder < view_.nodes && holder != view_.self ? peers_(holder) : nullptr;
            if (node == nullptr) return Status(EHOSTUNREACH, "no node " + std::to_string(holder) + " to ask");
            return node->HandOverDir(dir);
          }) {
  notifier_ = NamedThread("bb-kernel-inval", [this] { NotifyLoop(); });
  if (!table_.active() || catchup_every.count() <= 0) return;
  // Asleep while nothing is owed or given up (an idle daemon wakes for nothing); while a node
  // is owed, it tries every `catchup_every`.
  catchup_ = NamedThread("bb-catchup", [this, catchup_every] {
    std::unique_lock lock(owed_mu_);
    while (!stop_) {
      if (owed_.empty() && !table_.HasBreak()) {
        owed_cv_.wait(lock, [&] { return stop_ || !owed_.empty() || wake_; });
      } else {
        owed_cv_.wait_for(lock, catchup_every, [&] { return stop_ || wake_; });
      }
      wake_ = false;
      if (stop_) break;
      lock.unlock();
      Catchup();
      lock.lock();
    }
  });
}

Coherence::~Coherence() { Stop(); }

void Coherence::Stop() {
  {
    std::lock_guard lock(owed_mu_);
    stop_ = true;
  }
  owed_cv_.notify_all();
  if (catchup_.joinable()) catchup_.join();
  {
    std::lock_guard lock(notify_mu_);
    notify_stop_ = true;
  }
  notify_cv_.notify_all();
  told_cv_.notify_all();
  if (notifier_.joinable()) notifier_.join();
}

void Coherence::SetKernel(KernelHooks kernel) {
  std::unique_lock lock(kernel_mu_);
  kernel_ = std::move(kernel);
}

bool Coherence::SetKernel(KernelHooks kernel, std::chrono::milliseconds deadline) {
  std::unique_lock lock(kernel_mu_, std::defer_lock);
  if (!lock.try_lock_for(deadline)) return false;
  kernel_ = std::move(kernel);
  return true;
}

void Coherence::ToKernel(const std::vector<Invalidation>& items, std::chrono::milliseconds wait) {
  stats_.received.fetch_add(items.size(), std::memory_order_relaxed);
  if (items.empty()) return;
  bool held = false;
  {
    std::shared_lock kernel(kernel_mu_);
    if (!kernel_.drop) return;  // no session: nothing is cached to drop
    if (kernel_.forget) kernel_.forget(items);
    held = kernel_.held && kernel_.held(items);
  }
  std::unique_lock lock(notify_mu_);
  if (notify_stop_) return;
  if (notify_queue_.empty() || notify_queue_.front() != kDropEverything) {
    notify_queue_.insert(notify_queue_.end(), items.begin(), items.end());
    // A kernel held up long enough to pile this much up drops everything once it is free.
    if (notify_queue_.size() > kMaxKernelQueue) notify_queue_ = {kDropEverything};
  }
  uint64_t mine = ++notify_queued_;
  notify_cv_.notify_one();
  auto now = std::chrono::steady_clock::now();
  bool patient = wait > kKernelWait;
  bool held_up = !patient && (held || (notify_busy_since_ && now - *notify_busy_since_ >= kKernelWait));
  if (held_up || !told_cv_.wait_until(lock, now + wait, [&] { return notify_done_ >= mine || notify_stop_; })) {
    stats_.deferred.fetch_add(items.size(), std::memory_order_relaxed);
  }
}

void Coherence::NotifyLoop() {
  std::unique_lock lock(notify_mu_);
  for (;;) {
    notify_cv_.wait(lock, [&] { return notify_stop_ || !notify_queue_.empty(); });
    if (notify_stop_) return;
    // Everything queued meanwhile goes in one pass.
    std::vector<Invalidation> items = std::exchange(notify_queue_, {});
    uint64_t upto = notify_queued_;
    notify_busy_since_ = std::chrono::steady_clock::now();
    lock.unlock();
    {
      std::shared_lock kernel(kernel_mu_);
      if (kernel_.drop) kernel_.drop(items);
    }
    lock.lock();
    notify_busy_since_.reset();
    notify_done_ = upto;
    told_cv_.notify_all();
  }
}

void Coherence::Tell(const std::vector<Invalidation>& items, NodeId caller) {
  if (!table_.active()) return;
  std::map<NodeId, std::vector<Invalidation>> by_node;
  for (const Invalidation& item : items) {
    for (NodeId n : table_.Take(item.path, caller, item.entry)) by_node[n].push_back(item);
  }
  for (auto& [node, list] : by_node) TellNode(node, std::move(list));
}

void Coherence::DropEverywhere() {
  if (!table_.active()) return;
  for (NodeId n = 0; n < view_.nodes; ++n) {
    if (n != view_.self) TellNode(n, {kDropEverything});
  }
}

void Coherence::Nudge() {
  // The table gave registrations up: their holders are told now.
  {
    std::lock_guard lock(owed_mu_);
    wake_ = true;
  }
  owed_cv_.notify_all();
}

void Coherence::TellNode(NodeId node, std::vector<Invalidation> list) {
  if (node == view_.self) return ToKernel(list);
  {
    // A node that missed invalidations is not waited for again: these join what it is owed.
    std::lock_guard lock(owed_mu_);
    if (owed_.count(node)) return OweLocked(node, std::move(list));
  }
  if (!SendTo(node, list).ok()) {
    // Dead (its kernel went with it) or stuck: told again until it answers (counted: bbctl stats).
    std::lock_guard lock(owed_mu_);
    OweLocked(node, std::move(list));
  }
}

Status Coherence::SendTo(NodeId node, const std::vector<Invalidation>& list) {
  if (list.empty()) return Status::Ok();
  stats_.sent.fetch_add(list.size(), std::memory_order_relaxed);
  NodeService* peer = peers_ ? peers_(node) : nullptr;
  Status s = Status(EHOSTUNREACH, "no such node");
  for (size_t i = 0; peer && i < list.size(); i += kBatch) {
    std::vector<Invalidation> batch(list.begin() + i, list.begin() + std::min(list.size(), i + kBatch));
    if (!(s = peer->Invalidate(batch)).ok()) break;
  }
  if (!s.ok()) stats_.failed.fetch_add(list.size(), std::memory_order_relaxed);
  return s;
}

void Coherence::OweLocked(NodeId node, std::vector<Invalidation> list) {
  if (owed_.empty()) {
    wake_ = true;  // the thread sleeps while nothing is owed: it tries again from now on
    owed_cv_.notify_all();
  }
  std::vector<Invalidation>& owed = owed_[node];
  size_t before = owed.size();
  // kDropEverything covers anything more, but where files went: a descriptor open there follows
  // its file (FileSystem::Invalidated), which dropping every cache does not tell.
  const bool everything = !owed.empty() && owed.front() == kDropEverything;
  for (Invalidation& item : list) {
    if (!everything || item.file_id != 0) owed.push_back(std::move(item));
  }
  if (!everything && owed.size() > kMaxOwed) {
    std::erase_if(owed, [](const Invalidation& item) { return item.file_id == 0; });
    owed.insert(owed.begin(), kDropEverything);
  }
  if (owed.size() > kMaxOwed) owed.resize(kMaxOwed);  // later moves are not told (docs/consistency.md)
  stats_.owed.fetch_add(owed.size() - std::min(before, owed.size()), std::memory_order_relaxed);
}

void Coherence::Catchup() {
  // Registrations given up for room: each holder drops what it holds of them, a slice at a time
  // (the table is locked only while a slice moves).
  for (;;) {
    CallbackTable::Generation slice = table_.NextBreak(kBatch);
    if (slice.empty()) break;
    std::map<NodeId, std::vector<Invalidation>> by_node;
    for (const auto& [path, holders] : slice) {
      for (const CallbackTable::Holder& h : holders) by_node[h.node].push_back({path, true});
    }
    for (auto& [node, list] : by_node) {
      stats_.broken.fetch_add(list.size(), std::memory_order_relaxed);
      TellNode(node, std::move(list));
    }
    table_.DoneBreak();
  }
  // Nodes owed invalidations: told what they are owed (what comes meanwhile joins the next
  // try); one that answered and got nothing new since is even.
  std::vector<std::pair<NodeId, std::vector<Invalidation>>> owed;
  {
    std::lock_guard lock(owed_mu_);
    for (auto& [node, list] : owed_) owed.emplace_back(node, std::exchange(list, {}));
  }
  for (auto& [node, list] : owed) {
    Status s = SendTo(node, list);
    std::lock_guard lock(owed_mu_);
    if (!s.ok()) {
      OweLocked(node, std::move(list));
    } else if (auto it = owed_.find(node); it != owed_.end() && it->second.empty()) {
      owed_.erase(it);
    }
  }
}

void Coherence::SetHandOver(HandOverHook hook, HandOverDirHook dir_hook, OwnerResetHook reset_hook,
                            HeldLocksHook held_hook) {
  std::unique_lock lock(hand_over_mu_);
  hand_over_ = std::move(hook);
  hand_over_dir_ = std::move(dir_hook);
  owner_reset_ = std::move(reset_hook);
  held_locks_ = std::move(held_hook);
}

HeldLockPage Coherence::HeldLocks(NodeId keeper, uint64_t after, uint32_t limit) {
  std::shared_lock lock(hand_over_mu_);
  return held_locks_ ? held_locks_(keeper, after, limit) : HeldLockPage{};
}

void Coherence::OwnerReset(NodeId owner) {
  std::shared_lock lock(hand_over_mu_);
  if (owner_reset_) owner_reset_(owner);
}

std::vector<MadeEntry> Coherence::HandOverDir(const std::string& dir, NodeId owner) {
  std::shared_lock lock(hand_over_mu_);
  return hand_over_dir_ ? hand_over_dir_(dir, owner) : std::vector<MadeEntry>{};
}

std::vector<MadeEntry> Coherence::HandOver(const std::vector<std::string>& paths, NodeId owner) {
  std::shared_lock lock(hand_over_mu_);
  return hand_over_ ? hand_over_(paths, owner) : std::vector<MadeEntry>{};
}

}  // namespace bb::fs
