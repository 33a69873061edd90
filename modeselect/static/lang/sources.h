// ScanSources: what a job's C, C++, Fortran and Python sources do with files, from their text
// alone. Each file is tokenized (comments and strings never count as code) and modelled as
// functions of statements with their loops and if-conditions; values are followed through
// assignments so that a file name built from the rank (the out-argument of MPI_Comm_rank,
// comm.Get_rank(), SLURM_PROCID ...) is known when it reaches open/fopen/MPI_File_open/np.save.
// A function table spans every file of the job: an I/O call inside a helper defined in another
// file is attributed to the loop that calls it.
//
// Findings use only the fact names of modeselect/facts.cc; one finding per (fact, file, line).
// For count facts the value is the number of calls on the line, or for storms the trip count
// of the loops around it (the product of those known; 0 when none is known). For byte facts
// (access.small_writes ...) it is the record size; 0 means formatted records of unknown size.
//
// Thread-safety: pure function.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "modeselect/findings.h"
#include "modeselect/static/lang/tokenize.h"

namespace bb::modeselect {

struct SourceFile {
  std::string path;  // as findings should name it
  Lang lang = Lang::kC;
  std::string text;
};

// The findings of all `files`: first each file's own, in file order, then those that cross
// functions and files (helper calls in loops, barriers between phases, files read back).
std::vector<Finding> ScanSources(std::span<const SourceFile> files);

}  // namespace bb::modeselect
