#include "qos/channel_cache.h"

#include <array>
#include <atomic>
#include <string>

namespace bb::qos {
namespace {

std::atomic<uint64_t> next_cache_id{1};

struct Slot {
  pid_t pid = -1;
  uint64_t cache = 0;
  int64_t until_ns = 0;
  Stage::Channel* channel[2] = {nullptr, nullptr};
};

}  // namespace

ChannelCache::ChannelCache(Stage* stage, JobResolver* jobs, const Clock* clock, int64_t ttl_ns)
    : stage_(stage), jobs_(jobs), clock_(clock), ttl_ns_(ttl_ns), id_(next_cache_id.fetch_add(1)) {}

Stage::Channel* ChannelCache::Find(pid_t pid, uid_t uid, Class cls) {
  thread_local std::array<Slot, 64> slots;
  const int64_t now = clock_->MonotonicNs();
  Slot& slot = slots[static_cast<size_t>(pid) & 63];
  if (slot.pid != pid || slot.cache != id_ || now >= slot.until_ns) {
    std::string job = jobs_->JobOf(pid, uid);
    slot.pid = pid;
    slot.cache = id_;
    slot.until_ns = now + ttl_ns_;
    slot.channel[0] = stage_->Find(job, Class::kMetadata);
    slot.channel[1] = stage_->Find(job, Class::kData);
  }
  return slot.channel[static_cast<size_t>(cls)];
}

}  // namespace bb::qos
