// Byte sizes as people write them in configuration files and on command lines.
#pragma once

#include <cstdint>
#include <string>

#include "fs/base/status.h"

namespace bb {

// "4096", "512KiB", "1MiB", "2G" -> bytes: units B, K/KiB, M/MiB, G/GiB, T/TiB, all powers
// of 1024 (the daemon's configuration, bbctl and the QoS policy read sizes alike). EINVAL for
// anything else, and for sizes beyond 64 bits.
Result<uint64_t> ParseByteSize(const std::string& text);

// Bytes for people: "512 B", "1.5 KiB", "372 MiB" (three significant digits, powers of 1024).
std::string FormatByteSize(double bytes);

}  // namespace bb
