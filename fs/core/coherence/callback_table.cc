#include "fs/core/coherence/callback_table.h"

#include <algorithm>

namespace bb::fs {

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

bool CallbackTable::Register(const std::string& path, NodeId holder) {
  if (!active()) return false;
  std::lock_guard lock(mu_);
  RotateLocked(clock_->MonotonicNs());
  std::vector<Holder>& holders = current_[path];
  auto it = std::find_if(holders.begin(), holders.end(), [&](const Holder& h) { return h.node == holder; });
  if (it == holders.end()) {
    holders.push_back(Holder{holder, true});
  } else {
    it->attrs = true;
  }
  // Full: the older generation (or, with none, this one) is given up, at most two waiting to be
  // told (past that the table grows until they are).
  if (current_.size() + previous_.size() > capacity_ && breaking_.size() < 2) {
    Generation& oldest = previous_.empty() ? current_ : previous_;
    breaking_.push_back(std::move(oldest));
    oldest.clear();
    return true;
  }
  return false;
}

bool CallbackTable::HasBreak() const {
  std::lock_guard lock(mu_);
  return !breaking_.empty() || !telling_.empty();
}

CallbackTable::Generation CallbackTable::NextBreak(size_t max) {
  std::lock_guard lock(mu_);
  telling_.clear();
  while (!breaking_.empty() && breaking_.front().empty()) breaking_.pop_front();
  if (breaking_.empty()) return {};
  Generation& from = breaking_.front();
  for (auto it = from.begin(); it != from.end() && telling_.size() < max;) telling_.insert(from.extract(it++));
  return telling_;
}

void CallbackTable::DoneBreak() {
  std::lock_guard lock(mu_);
  telling_.clear();
  while (!breaking_.empty() && breaking_.front().empty()) breaking_.pop_front();
}

std::vector<NodeId> CallbackTable::Take(const std::string& path, NodeId except, bool entry) {
  std::vector<NodeId> out;
  if (!active()) return out;
  std::lock_guard lock(mu_);
  RotateLocked(clock_->MonotonicNs());
  std::vector<Generation*> generations = {&current_, &previous_, &telling_};
  for (Generation& g : breaking_) generations.push_back(&g);
  for (Generation* g : generations) {
    auto it = g->find(path);
    if (it == g->end()) continue;
    std::vector<Holder>& holders = it->second;
    for (auto h = holders.begin(); h != holders.end();) {
      if (h->node == except || !(entry || h->attrs)) {
        ++h;
        continue;
      }
      if (std::find(out.begin(), out.end(), h->node) == out.end()) out.push_back(h->node);
      if (entry) {
        h = holders.erase(h);
      } else {
        (h++)->attrs = false;
      }
    }
    if (holders.empty()) g->erase(it);
  }
  return out;
}

size_t CallbackTable::size() const {
  std::lock_guard lock(mu_);
  size_t n = current_.size() + previous_.size() + telling_.size();
  for (const Generation& g : breaking_) n += g.size();
  return n;
}

}  // namespace bb::fs
