// DaemonConfig: everything one bbd is told — a plain struct (the programs fill it from the YAML
// file and the command line through the table of fields in tools/config/daemon_config.h, which
// also documents each field). This library never reads YAML.
//
// Thread-safety: value type and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fs/base/status.h"
#include "fs/core/placement/chunking.h"

namespace bb::fs {

struct DaemonConfig {
  std::string root;
  std::string mount;
  std::string fsname = "bbfs";  // the mount's source in /proc/mounts
  uint64_t chunk_size = kDefaultChunkSize;
  std::string log_level = "info";
  std::string log_to = "file";  // file (<root>/bbd.log; stderr in the foreground) | syslog
  uint32_t fuse_threads = 16;
  double cache_timeout = -1;  // < 0: not set (1 s on one node, 300 s in a cluster)
  double private_cache_timeout = 60;
  uint32_t statahead = 8192;       // entries per read-ahead of a directory; 0: off
  bool small_file_streams = true;  // fs/core/creates/create_streams.h
  bool dir_leases = true;          // fs/core/creates/dir_leases.h
  bool xattrs = false;             // extended attributes (fs/core/ops/xattrs.cc)
  uint64_t reserve_bytes = 8 << 20;
  uint64_t write_behind_bytes = 64 << 20;
  uint32_t io_threads = 16;
  std::string hosts_file;
  std::string cluster_key_file;  // empty: `<hosts_file>.key`
  std::string node_name;
  std::string listen;
  uint32_t nodes = 1;
  uint32_t rpc_timeout_ms = 5000;
  uint32_t rpc_liveness_ms = 0;  // 0: rpc_timeout_ms
  uint32_t rpc_poll_spin_us = 50;
  uint32_t rpc_large_in_flight = 16;
  uint32_t rpc_max_queued = 4096;
  std::string qos_stage = "auto";
  struct QosLimit {
    std::optional<double> metadata;  // ops/s
    std::optional<double> data;      // bytes/s
  };
  std::map<std::string, QosLimit> qos_limits;
  std::string qos_controller;
  uint32_t qos_threads = 4;
  std::string qos_identity = "cgroup";
  std::string metrics_file;          // empty: none
  std::string metrics_group;         // empty: the file is world-readable (0644); else 0640 and this group
  uint32_t metrics_interval_s = 15;  // cgroup | environment (see qos/job_identity.h)

  bool QosActive() const {
    return qos_stage == "on" || (qos_stage == "auto" && (!qos_limits.empty() || !qos_controller.empty()));
  }

  bool cluster() const { return !hosts_file.empty(); }
  std::string KeyFile() const {
    return !cluster_key_file.empty() || !cluster() ? cluster_key_file : hosts_file + ".key";
  }
  double EffectiveCacheTimeout() const { return cache_timeout >= 0 ? cache_timeout : (cluster() ? 300.0 : 1.0); }
};

// Checks the fields that only make sense together (the cluster fields). EINVAL naming them.
Status ValidateDaemonConfig(const DaemonConfig& cfg);

}  // namespace bb::fs
