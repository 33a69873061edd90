// IOR, mdtest and fio command lines (and fio job files) read into the ior.*, mdtest.* and
// fio.* facts, each finding at the place that says it.
//
//   IOR     the option table of hpc/ior (src/parse_options.c: short options, the long options
//           --collective, --dataPacketType, --randomPrefill, --random-offset-seed, --dryRun,
//           --posix.odirect, --mpiio.*, and -O key=value directives with IOR's case-insensitive
//           keys: blockSize, transferSize, segmentCount, filePerProc, reorderTasks ...).
//           Defaults as IOR's: -t 256k, -b 1m, -s 1, write and read when neither is asked.
//   mdtest  the option table of hpc/ior's src/mdtest.c.
//   fio     --name=... sections on the command line (options before the first --name are
//           global), INI job files ([global] inherited by the job sections after it), ${VAR}
//           from the script's variables.
// Sizes ("1m", "47008", "2g", "4k") are powers of 1024, in bytes.
//
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "modeselect/findings.h"
#include "modeselect/static/cmdline/placement.h"

namespace bb::modeselect {

// Where a benchmark runs: the command line's file, line and text, and its task count (0 =
// unknown).
struct Where {
  std::string file;
  int line = 0;
  std::string snippet;
  int tasks = 0;
};

struct BenchmarkRun {
  std::vector<Finding> findings;
  std::vector<std::string> paths;  // the files and directories it works in
  bool writes = false;             // it writes (creates) data
  bool reads = false;              // it reads data that must exist before it starts
  std::vector<RankShift> shifts;   // its reads of other tasks' data, one per phase that reads
};

// `args` are the words after the program name.
BenchmarkRun ParseIorArgs(std::span<const std::string> args, const Where& where);
// The settings of an IOR script (`ior -f FILE`: "IOR START", key=value lines, "RUN", "IOR
// STOP"; # comments) as one -O directive list, "key=value,key=value", every run's in order (a
// later run's value of a key wins, as IOR carries settings from run to run).
std::string IorScriptDirectives(std::string_view script);
BenchmarkRun ParseMdtestArgs(std::span<const std::string> args, const Where& where);

struct FioJobFile {
  std::string path;  // as findings name it (the script, for a here-document)
  std::string text;
  int first_line = 1;  // the line of `path` the text starts on
};

// `job_files` are the files the command line names (in its order); `vars` expand ${VAR}.
BenchmarkRun ParseFioArgs(std::span<const std::string> args, std::span<const FioJobFile> job_files, const Where& where,
                          const std::map<std::string, std::string>& vars = {});

}  // namespace bb::modeselect
