// The daemon's configuration: the YAML file `bbd --config` reads, turned into a plain struct.
//
// Fields (all optional in the file; flags on the command line override them):
//   root: DIR            backing directory (metadata database and chunks)
//   mount: DIR           mount point
//   chunk_size: SIZE     bytes or "512KiB"/"1MiB"/...; a power of two, 4 KiB..1 GiB
//   log_level: LEVEL     trace|debug|info|warn|error
//   fuse_threads: N      most FUSE worker threads (1..1024)
//   cache_timeout: SEC   kernel attribute/entry cache lifetime, seconds (0..3600)
//   reserve: SIZE        free space kept on the backing store for metadata (default 8MiB)
// An unknown field, a wrong type or a value out of range is an error naming the file, line and
// field; nothing is silently defaulted.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "fs/base/status.h"

namespace bb::fs {

struct DaemonConfig {
  std::string root;
  std::string mount;
  uint64_t chunk_size = 512 * 1024;
  std::string log_level = "info";
  uint32_t fuse_threads = 16;
  double cache_timeout = 1.0;
  uint64_t reserve_bytes = 8 << 20;
};

// Parses YAML text; `source` names it in errors ("bbd.yaml:4: ...").
// EINVAL with the message when the text is not a valid configuration.
Result<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source);
// Reads and parses a file; ENOENT/EACCES when it cannot be read.
Result<DaemonConfig> LoadDaemonConfig(const std::string& path);

// "4096", "512KiB", "1MiB", "2G" -> bytes. EINVAL for anything else.
Result<uint64_t> ParseByteSize(const std::string& text);

}  // namespace bb::fs
