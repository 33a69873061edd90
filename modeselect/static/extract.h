// ExtractStatic: the static evidence of a job for the mode selector — what its Slurm batch
// script and the sources it runs say about how the job will use the burst buffer, each finding
// with its evidence (file, line, snippet). It joins the job-script interpreter
// (job_script.h: geometry, launches, helper scripts, IOR/mdtest/fio, staging) and the source
// scanner (sources.h: C, C++, Fortran, Python).
//
// Files are read through a FileSource (files.h); findings name files relative to the job
// script's folder when they lie inside it. A whole job (script and a few sources) takes a few
// milliseconds.
//
// Thread-safety: pure functions of their arguments (reads only through the FileSource).
#pragma once

#include <string>
#include <vector>

#include "fs/base/status.h"
#include "modeselect/findings.h"
#include "modeselect/static/files.h"

namespace bb::modeselect {

struct ExtractOptions {
  std::vector<std::string> source_dirs;  // empty = the job script's folder
};

// Reads the job script, every source it can trace (python X.py, a binary built by mpicc or
// make) and every source file (.c .cc .cpp .h .f90 .f .py ...) under source_dirs, and reports
// what they do. files_scanned lists the scripts, Makefiles, job files and sources read, in
// order; a file that exists but cannot be read is skipped and listed there as
// "unreadable:<path>" (it contributes no finding).
// Errors: the job script's (ENOENT, EACCES, EISDIR, EFBIG), annotated with its path.
Result<StaticEvidence> ExtractStatic(const std::string& job_script, const ExtractOptions& options);
Result<StaticEvidence> ExtractStatic(const std::string& job_script, const ExtractOptions& options,
                                     const FileSource& files);

// The prefix that marks an unreadable file in StaticEvidence::files_scanned.
inline constexpr const char kUnreadablePrefix[] = "unreadable:";

}  // namespace bb::modeselect
