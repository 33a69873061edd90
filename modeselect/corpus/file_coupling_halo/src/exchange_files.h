// Halo exchange through files: the coupler's file layout and its two operations.
#pragma once

#include <string>
#include <vector>

namespace coupler {

enum class Side { kLeft, kRight };

// RUN/step_NNNN/strip_rRRRR_{left,right}.bin: the edge strip on `side` of rank `rank`'s
// subdomain at coupling step `step`. Used both for the own strips and for the neighbours'.
std::string StripPath(const std::string& run, int step, int rank, Side side);

// Writes this rank's two edge strips of step `step` (a header with rank, step, side and
// length, then the values), each through a temporary name and a rename.
void PutStrips(const std::string& run, int step, int rank, const std::vector<double>& left,
               const std::vector<double>& right);

// Reads the strip of rank `from` on `side` at step `step` into `out` (whose size says how
// many values), checking the header. Exits the job (MPI_Abort) when it is missing or wrong.
void GetStrip(const std::string& run, int step, int from, Side side, std::vector<double>& out);

// Removes this rank's strips of step `step`.
void DropStrips(const std::string& run, int step, int rank);

}  // namespace coupler
