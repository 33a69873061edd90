// bbctl stage in|out SRC DST: the staging command (tools/stage/stage.h does the work).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tools/stage/stage.h"

namespace bb::ctl {

struct StageArgs {
  stage::Options options;
  std::string piece_size = "64MiB";
  bool json = false, quiet = false;
  CLI::App* in = nullptr;
  CLI::App* out = nullptr;
};

// Adds `stage in` and `stage out` to `app`.
void AddStageCommands(CLI::App& app, StageArgs* args);
// True when one of them was given.
bool StageChosen(const StageArgs& args);
// Runs it: 0 when every file is staged and verified, 1 when any is not (each named on stderr),
// 2 when nothing could start.
int RunStage(StageArgs& args);

}  // namespace bb::ctl
