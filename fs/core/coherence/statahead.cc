#include "fs/core/coherence/statahead.h"

#include <algorithm>

#include "fs/core/placement/path.h"

namespace bb::fs {
namespace {

constexpr int64_t kMissGapNs = 1'000'000'000;  // misses further apart do not add up
constexpr size_t kMaxDirs = 4096;              // directories whose misses are counted at once
constexpr size_t kChangeWindow = 4096;         // Changed() paths remembered for Fill

}  // namespace

std::optional<Statahead::Hit> Statahead::Take(const std::string& path, int64_t now_ns) {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = items_.find(path);
  if (it == items_.end()) return std::nullopt;
  Item item = std::move(it->second);
  items_.erase(it);
  if (now_ns - item.asked_ns >= options_.fresh_ns) return std::nullopt;
  counters_.hits++;
  if (auto d = dirs_.find(std::string(ParentPath(path))); d != dirs_.end()) d->second.hits_since++;
  return Hit{std::move(item.md), item.asked_ns};
}

std::optional<Statahead::Plan> Statahead::Missed(const std::string& dir, int64_t now_ns) {
  if (!enabled()) return std::nullopt;
  std::lock_guard lock(mu_);
  if (dirs_.size() >= kMaxDirs && dirs_.find(dir) == dirs_.end()) {
    std::erase_if(dirs_, [](const auto& kv) { return !kv.second.reading; });
  }
  DirState& d = dirs_[dir];
  if (d.trigger == 0) d.trigger = options_.trigger;
  if (now_ns - d.last_miss_ns > kMissGapNs) d.misses = 0;
  d.last_miss_ns = now_ns;
  if (d.reading || ++d.misses < d.trigger) return std::nullopt;
  if (d.fetched_last > 0) {
    // Judged once: the last read-ahead answered fewer lookups than it took to start it, so the
    // next waits longer; one that answered more starts the count afresh.
    d.trigger = d.hits_since < d.trigger ? std::min(2 * d.trigger, kMaxTrigger) : options_.trigger;
    d.fetched_last = 0;
    if (d.misses < d.trigger) return std::nullopt;
  }
  d.reading = true;
  d.misses = 0;
  d.hits_since = 0;
  counters_.reads++;
  return Plan{dir, d.next, change_seq_};
}

void Statahead::Fill(const Plan& plan, std::vector<std::pair<std::string, Metadata>> entries, int64_t asked_ns,
                     std::string next) {
  std::lock_guard lock(mu_);
  if (auto d = dirs_.find(plan.dir); d != dirs_.end()) {
    d->second.reading = false;
    d->second.fetched_last = entries.size();
    d->second.next = std::move(next);
  }
  counters_.fetched += entries.size();
  // Changes older than the window are not known any more: the read may have missed one.
  if (!changes_.empty() && changes_.front().seq > plan.since + 1) return;
  if (items_.size() + entries.size() > options_.capacity) ExpireLocked(asked_ns);
  for (auto& [path, md] : entries) {
    if (items_.size() >= options_.capacity) break;
    if (ChangedSinceLocked(path, plan.since)) continue;
    items_.insert_or_assign(std::move(path), Item{std::move(md), asked_ns});
  }
}

void Statahead::Abandon(const Plan& plan) {
  std::lock_guard lock(mu_);
  if (auto d = dirs_.find(plan.dir); d != dirs_.end()) d->second.reading = false;
}

void Statahead::Changed(const std::string& path, bool below) {
  if (!enabled()) return;
  std::lock_guard lock(mu_);
  items_.erase(path);
  if (below && path == "/") {
    items_.clear();
  } else if (below) {
    // The names that start with "path/" ('0' follows '/').
    items_.erase(items_.lower_bound(path + "/"), items_.lower_bound(path + "0"));
  }
  changes_.push_back({++change_seq_, path, below});
  if (changes_.size() > kChangeWindow) changes_.pop_front();
}

bool Statahead::ChangedSinceLocked(const std::string& path, uint64_t since) const {
  for (auto it = changes_.rbegin(); it != changes_.rend() && it->seq > since; ++it) {
    if (it->below ? IsSameOrBelow(path, it->path) : path == it->path) return true;
  }
  return false;
}

void Statahead::ExpireLocked(int64_t now_ns) {
  std::erase_if(items_, [&](const auto& kv) { return now_ns - kv.second.asked_ns >= options_.fresh_ns; });
}

Statahead::Counters Statahead::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

size_t Statahead::size() const {
  std::lock_guard lock(mu_);
  return items_.size();
}

}  // namespace bb::fs
