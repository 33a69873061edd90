// Test support: a fake /proc tree for JobResolver (qos/job_identity.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fs/base/temp_dir.h"

namespace bb::qos::testing {

struct FakeProc {
  // Process `pid` started at `start` (clock ticks) with `environ` (NUL-separated) and `cgroup`.
  void Process(pid_t pid, uint64_t start, const std::string& environ, const std::string& cgroup) {
    std::string d = dir.path + "/" + std::to_string(pid);
    std::filesystem::create_directories(d);
    std::ofstream(d + "/stat") << pid << " (my prog) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 " << start
                               << " 20 21\n";
    std::ofstream(d + "/environ") << environ;
    std::ofstream(d + "/cgroup") << cgroup;
  }
  TempDir dir{"bb-proc"};
  const std::string& root = dir.path;
};

}  // namespace bb::qos::testing
