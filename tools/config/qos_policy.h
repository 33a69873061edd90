// The QoS controller's policy file (YAML; the fields are described in qos/controller.h), read
// into qos::Policy. An unknown field, a wrong type or a value out of range is an error naming
// the file, line and field.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "fs/base/status.h"
#include "qos/controller.h"

namespace bb::config {

Result<qos::Policy> ParsePolicy(const std::string& text, const std::string& source);
// ENOENT naming the file when it cannot be read.
Result<qos::Policy> LoadPolicy(const std::string& path);

}  // namespace bb::config
