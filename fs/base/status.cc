#include "fs/base/status.h"

#include <cstring>

namespace bb {

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s = std::strerror(code_);
  if (!message_.empty()) s += ": " + message_;
  return s;
}

}  // namespace bb
