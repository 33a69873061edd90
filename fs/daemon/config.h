// The daemon's configuration: the YAML file `bbd --config` reads, turned into a plain struct.
//
// Fields (all optional in the file; flags on the command line override them):
//   root: DIR            backing directory (metadata database and chunks)
//   mount: DIR           mount point
//   chunk_size: SIZE     bytes or "512KiB"/"1MiB"/...; a power of two, 4 KiB..1 GiB
//   log_level: LEVEL     trace|debug|info|warn|error
//   fuse_threads: N      most FUSE worker threads (1..1024)
//   cache_timeout: SEC   kernel attribute/entry cache lifetime, seconds (0..3600)
//   private_cache_timeout: SEC  the same for node-private entries and data (mode 1 workspaces,
//                        which no other node sees), 0..3600, default 60; 0 also drops the page
//                        cache of those files at every open, like shared files
//   reserve: SIZE        free space kept on the backing store for metadata (default 8MiB)
//   write_behind: SIZE   most bytes of writes to other nodes' chunks on their way while
//                        write() has returned (default 64MiB; 0 = every write waits for its
//                        chunks). Their errors come back from the next flush/close, fsync or
//                        write (see fs/core/file_system.h)
//   io_threads: N        threads that carry the chunks of one read or write to their nodes at
//                        the same time, and the writes behind (1..256, default 16)
// Cluster fields (all needed together; without them the daemon serves one node):
//   hosts_file: PATH     the shared hosts file (see hosts_file.h)
//   node_name: NAME      this node's name in it (default: the host name)
//   listen: IP:PORT      where this daemon serves the other nodes
//   nodes: N             how many nodes the instance has (the daemon waits for all)
//   rpc_timeout: MS      deadline of every call to another node (default 5000)
//   rpc_poll_spin: US    how long the transport keeps polling for messages before it sleeps,
//                        microseconds (0..10000, default 50; see TransportOptions::poll_spin):
//                        lower round trips for a core's time. 0 when nodes share cores, as
//                        the emulated cluster's do
//   rpc_large_in_flight: N  most chunk-sized transfers to other nodes under way at once
//                        (1..1024, default 16; TransportOptions::max_large_in_flight): enough
//                        to keep the links busy while each waits its turn in their queues
// QoS (qos/stage.h; all optional):
//   qos_stage: auto|on|off     the per-job stage every request passes; auto = on when limits
//                              or a controller are configured (else a plain pass-through)
//   qos_limits:                static limits per job, until a controller says otherwise:
//     JOB: {metadata: OPS_PER_S, data: SIZE_PER_S}
//   qos_controller: IP:PORT    the bb-controller to report to and take rates from
//   qos_threads: N             threads that run requests which had to wait (1..256, default 4)
// cache_timeout defaults to 1 s on one node and to 0 on several, where another node may
// change what the kernel would cache.
// An unknown field, a wrong type or a value out of range is an error naming the file, line and
// field; nothing is silently defaulted.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "fs/base/status.h"
#include "fs/base/units.h"  // ParseByteSize, for sizes in the configuration

namespace bb::fs {

struct DaemonConfig {
  std::string root;
  std::string mount;
  uint64_t chunk_size = 512 * 1024;
  std::string log_level = "info";
  uint32_t fuse_threads = 16;
  double cache_timeout = -1;  // < 0: not set (1 s on one node, 0 on several)
  double private_cache_timeout = 60;
  uint64_t reserve_bytes = 8 << 20;
  uint64_t write_behind_bytes = 64 << 20;
  uint32_t io_threads = 16;
  std::string hosts_file;
  std::string node_name;
  std::string listen;
  uint32_t nodes = 1;
  uint32_t rpc_timeout_ms = 5000;
  uint32_t rpc_poll_spin_us = 50;
  uint32_t rpc_large_in_flight = 16;
  std::string qos_stage = "auto";
  struct QosLimit {
    std::optional<double> metadata;  // ops/s
    std::optional<double> data;      // bytes/s
  };
  std::map<std::string, QosLimit> qos_limits;
  std::string qos_controller;
  uint32_t qos_threads = 4;

  bool QosActive() const {
    return qos_stage == "on" || (qos_stage == "auto" && (!qos_limits.empty() || !qos_controller.empty()));
  }

  bool cluster() const { return !hosts_file.empty(); }
  double EffectiveCacheTimeout() const { return cache_timeout >= 0 ? cache_timeout : (cluster() ? 0 : 1.0); }
};

// Applies command-line values (field name -> text) over `cfg`, with the same checks as the
// file; `source` names them in errors. EINVAL for an unknown field or a bad value.
Status ApplyOverrides(DaemonConfig* cfg, const std::vector<std::pair<std::string, std::string>>& values,
                      const std::string& source);

// Checks the fields that only make sense together (the cluster fields). EINVAL naming them.
Status ValidateDaemonConfig(const DaemonConfig& cfg);

// Parses YAML text; `source` names it in errors ("bbd.yaml:4: ...").
// EINVAL with the message when the text is not a valid configuration.
Result<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source);
// Reads and parses a file; ENOENT/EACCES when it cannot be read.
Result<DaemonConfig> LoadDaemonConfig(const std::string& path);

}  // namespace bb::fs
