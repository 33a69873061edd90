// The hosts file: how the daemons of one instance find each other.
//
// One line per node, "<node name> <ipv4>:<port>", on a file system every node sees. Each daemon
// adds (or, on restart, replaces) its own line atomically: under an exclusive lock on
// "<file>.lock" it writes a new file and renames it over the old one, so readers never see a
// half-written file. Node ids are the positions of the names in sorted order, so they are the
// same on every node and across restarts.
//
// Thread-safety: functions are safe to call from many processes at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::fs {

struct HostEntry {
  std::string name;
  std::string host;
  uint16_t port = 0;
  bool operator==(const HostEntry&) const = default;
};

// Adds or replaces the line of `self.name`.
Status PublishHost(const std::string& path, const HostEntry& self);
// The entries sorted by name. EINVAL naming the line for a malformed one; ENOENT when absent.
Result<std::vector<HostEntry>> ReadHosts(const std::string& path);
// Waits until the file lists `count` nodes. ETIMEDOUT (saying how many it saw) after `limit`;
// EINVAL when it lists more than `count`.
Result<std::vector<HostEntry>> WaitForHosts(const std::string& path, size_t count, std::chrono::milliseconds limit);
// "ip:port" -> (ip, port); EINVAL otherwise.
Result<std::pair<std::string, uint16_t>> ParseHostPort(const std::string& text);

}  // namespace bb::fs
