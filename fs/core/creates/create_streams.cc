#include "fs/core/creates/create_streams.h"

#include <algorithm>
#include <vector>

namespace bb::fs {

std::string CreateStreams::Key(pid_t pid, std::string_view dir) {
  std::string key = std::to_string(pid);
  key.push_back('\0');
  key.append(dir);
  return key;
}

bool CreateStreams::ExpectSmall(pid_t pid, std::string_view dir, int64_t now_ns) const {
  std::lock_guard lock(mu_);
  auto it = streams_.find(Key(pid, dir));
  return it != streams_.end() && Small(it->second, now_ns);
}

bool CreateStreams::Created(pid_t pid, std::string_view dir, int64_t now_ns) {
  std::lock_guard lock(mu_);
  if (streams_.size() >= kCapacity) TrimLocked(now_ns);
  auto [it, fresh] = streams_.try_emplace(Key(pid, dir));
  bool small = !fresh && Small(it->second, now_ns);
  it->second.created_ns = now_ns;
  return small;
}

bool CreateStreams::Small(const Stream& s, int64_t now_ns) {
  return now_ns - s.created_ns <= kWindowNs && now_ns - s.large_ns > kWindowNs;
}

void CreateStreams::Large(pid_t pid, std::string_view dir, int64_t now_ns) {
  std::lock_guard lock(mu_);
  if (streams_.size() >= kCapacity) TrimLocked(now_ns);
  streams_[Key(pid, dir)].large_ns = now_ns;
}

void CreateStreams::TrimLocked(int64_t now_ns) {
  // Streams that made nothing within the window say nothing any more; if that is not enough,
  // the older half goes.
  std::erase_if(streams_, [&](const auto& kv) { return now_ns - kv.second.created_ns > kWindowNs; });
  if (streams_.size() < kCapacity) return;
  std::vector<int64_t> times;
  times.reserve(streams_.size());
  for (const auto& [key, s] : streams_) times.push_back(s.created_ns);
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  int64_t median = times[times.size() / 2];
  std::erase_if(streams_, [&](const auto& kv) { return kv.second.created_ns <= median; });
}

}  // namespace bb::fs
