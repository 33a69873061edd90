// Fuzz target: a control-socket request line as the daemon reads it (JSON, then a job_start's
// layout fields), and a controller frame stream (length-prefixed JSON messages, reports and
// shares messages).
#include <cstdint>
#include <string>

#include "fs/daemon/control.h"
#include "qos/controller.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  if (auto request = bb::fs::ParseControlRequest(in)) (void)bb::fs::JobStartSpec(*request);
  std::string stream = in;
  for (int i = 0; i < 64; ++i) {
    auto body = bb::qos::PopMessage(&stream);
    if (!body || !body->has_value()) break;
    auto message = bb::qos::ParseMessage(**body);
    if (message && message->contains("usage")) (void)bb::qos::ParseUsage((*message)["usage"]);
    if (message) {  // as a daemon takes a shares message, with and without its own report
      bb::qos::NodeUsage mine{{"A", {1, 2}}};
      (void)bb::qos::LimitsFromShares(*message, &mine);
      (void)bb::qos::LimitsFromShares(*message, nullptr);
    }
  }
  return 0;
}
