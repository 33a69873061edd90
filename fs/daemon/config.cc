#include "fs/daemon/config.h"

namespace bb::fs {

Status ValidateDaemonConfig(const DaemonConfig& cfg) {
  if (cfg.cluster()) {
    if (cfg.listen.empty()) return Status(EINVAL, "a cluster node needs 'listen' (--listen IP:PORT)");
    if (cfg.node_name.empty()) return Status(EINVAL, "a cluster node needs 'node_name' (--node-name)");
  } else if (cfg.nodes > 1 || !cfg.listen.empty()) {
    return Status(EINVAL, "'nodes' and 'listen' need 'hosts_file' (--hosts-file)");
  }
  return Status::Ok();
}

}  // namespace bb::fs
