// Fuzz target: every YAML reader of the programs — the daemon's configuration, mode files, QoS
// policies, the mode selector's knowledge base — on the same bytes.
#include <cstdint>
#include <string>

#include "tools/config/daemon_config.h"
#include "tools/config/knowledge.h"
#include "tools/config/mode_file.h"
#include "tools/config/qos_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  (void)bb::config::ParseDaemonConfig(in, "fuzz");
  (void)bb::config::ParseModeFile(in, "fuzz");
  (void)bb::config::ParsePolicy(in, "fuzz");
  (void)bb::config::ParseKnowledgeBase(in, in, in, "fuzz/");
  return 0;
}
