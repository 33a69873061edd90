// ParseJobScript: what a Slurm batch script does, read as the batch shell would run it (a real
// lexer and parser, shell.h): #SBATCH geometry; variables followed through assignments,
// ${VAR:-default}, $((arithmetic)) and for loops; shell functions; helper scripts it sources or
// runs (followed through `files`, bounded depth); every srun/mpirun/mpiexec line as a Launch
// with its step; the programs they run traced to their sources (python X.py; binaries built
// earlier by mpicc ... -o BIN or by make); IOR, mdtest and fio command lines and job files
// (benchmarks.h); stage-in/out through $BB_MOUNT, per-task directories, and how steps share
// data (launch.*, script.* facts).
//
// Paths handed to `files` are the script's own folder joined with what the script names;
// findings name files relative to the job script's folder.
//
// Thread-safety: pure function of its arguments (reads only through `files`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "modeselect/findings.h"
#include "modeselect/static/cmdline/launchers.h"
#include "modeselect/static/files.h"

namespace bb::modeselect {

struct JobScript {
  SbatchGeometry sbatch;
  std::vector<Launch> launches;
  std::vector<Finding> findings;
  std::vector<std::string> scripts;     // the job script, helpers, Makefiles, job files read
  std::vector<std::string> sources;     // source files its programs trace to (paths for `files`)
  std::vector<std::string> unreadable;  // helper files that exist but could not be read
};

JobScript ParseJobScript(const std::string& path, std::string_view text, const FileSource& files);
// The same with no other file readable (helpers, Makefiles and job files are not followed).
JobScript ParseJobScript(const std::string& path, std::string_view text);

}  // namespace bb::modeselect
