// Fuzz target: the mode selector's readers of a probe run — the probe profile document (JSON)
// and darshan-parser's text output.
#include <cstdint>
#include <string>

#include "modeselect/profile/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)bb::modeselect::ParseProbeProfile(in, "fuzz");
  (void)bb::modeselect::ParseDarshanText(in, "fuzz");
  return 0;
}
