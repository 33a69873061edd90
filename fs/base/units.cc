#include "fs/base/units.h"

#include <cctype>
#include <cstdio>

namespace bb {

Result<uint64_t> ParseByteSize(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 18) return Status(EINVAL, "'" + text + "' is not a size");
  uint64_t n = std::stoull(text.substr(0, i));
  std::string unit = text.substr(i);
  static const std::pair<const char*, int> kUnits[] = {{"", 0},     {"B", 0},  {"K", 10},   {"KiB", 10}, {"M", 20},
                                                       {"MiB", 20}, {"G", 30}, {"GiB", 30}, {"T", 40},   {"TiB", 40}};
  for (const auto& [name, shift] : kUnits) {
    if (unit == name) {
      if (shift > 0 && n > (UINT64_MAX >> shift)) return Status(EINVAL, "'" + text + "' is too large");
      return n << shift;
    }
  }
  return Status(EINVAL, "'" + text + "' has an unknown unit (use B, KiB, MiB, GiB, TiB)");
}

std::string FormatByteSize(double bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (bytes >= 1024 && i < 4) bytes /= 1024, ++i;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g %s", bytes, kNames[i]);
  return buf;
}

}  // namespace bb
