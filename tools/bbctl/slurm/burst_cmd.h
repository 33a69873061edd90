// bbctl bb prolog|task-env|epilog|up|down|append: a job's burst buffer under Slurm (burst.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tools/bbctl/slurm/burst.h"

namespace bb::ctl {

struct BurstArgs {
  BurstOptions options;
  std::string file, text;    // append
  std::string check_script;  // check
  CLI::App *prolog = nullptr, *task_env = nullptr, *epilog = nullptr, *up = nullptr, *down = nullptr, *append = nullptr,
           *check = nullptr;
};

// Adds `bb` and its subcommands to `app`.
void AddBurstCommands(CLI::App& app, BurstArgs* args);
// True when one of them was given.
bool BurstChosen(const BurstArgs& args);
// Runs it; returns the exit status.
int RunBurst(BurstArgs& args);

}  // namespace bb::ctl
