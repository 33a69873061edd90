// ChannelCache: the QoS channels (qos/stage.h) of each calling process, remembered per calling
// thread for a short while, so that most file-system requests find their channel with no lock
// and no string. The JobResolver behind it re-checks a pid for reuse every second, so a reused
// pid gets its own job's channels within `ttl` plus that.
//
// QoS admission happens in the FUSE adapter, before the request's one call into the core: the
// adapter finds the request's channel here and submits the call to the Stage.
//
// Thread-safety: Find may be called from any number of threads; each thread has its own slots.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "fs/base/clock.h"
#include "qos/job_identity.h"
#include "qos/stage.h"

namespace bb::qos {

class ChannelCache {
 public:
  // `stage`, `jobs` and `clock` must outlive the cache.
  ChannelCache(Stage* stage, JobResolver* jobs, const Clock* clock, int64_t ttl_ns = 250'000'000);
  ChannelCache(const ChannelCache&) = delete;
  ChannelCache& operator=(const ChannelCache&) = delete;

  // The channel of class `cls` of the job that process `pid` (of user `uid`) belongs to.
  // Channels live as long as the stage.
  Stage::Channel* Find(pid_t pid, uid_t uid, Class cls);

 private:
  Stage* const stage_;
  JobResolver* const jobs_;
  const Clock* const clock_;
  const int64_t ttl_ns_;
  const uint64_t id_;  // tells this cache's slots from those of a cache that lived at this address before
};

}  // namespace bb::qos
