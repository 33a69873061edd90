// Evidence: everything a reasoner may look at to choose a job's layout mode — the static
// findings (modeselect/findings.h) and the signals derived from them and from one probe run's
// profile (modeselect/profile/) — and nothing else: reasoners read no files and no clock.
//
// Signals are named numbers ("profile.cross_node_read_fraction" = 0.75) from one table,
// Signals() (signals.cc), each with the sentence that says where it came from.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "modeselect/findings.h"

namespace bb::modeselect {

struct SignalInfo {
  const char* name;         // "profile.cross_node_read_fraction"
  const char* description;  // one sentence
  const char* unit;         // "fraction", "count", "bytes", "ops/MiB", ...
};
std::span<const SignalInfo> Signals();
const SignalInfo* FindSignal(std::string_view name);

struct Signal {
  std::string name;  // from Signals()
  double value = 0;
  std::string why;  // "3 of 4 files read on node 1 were written on node 0"
};

struct Evidence {
  StaticEvidence statics;  // empty when no script or sources were given
  bool have_static = false;
  bool have_profile = false;    // a probe profile or a Darshan log was read
  std::vector<Signal> signals;  // derived from both
  uint32_t nodes = 0;           // nodes the job will run on (0 = unknown)

  const Signal* Find(std::string_view name) const;
  // The value of signal `name`, or `otherwise` when absent.
  double Value(std::string_view name, double otherwise = 0) const;
};

}  // namespace bb::modeselect
