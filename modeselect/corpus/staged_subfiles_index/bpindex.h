// The on-disk layout of a run.bp directory (read by bpselect.py too).
//
//   run.bp/data.<a>   one subfile per aggregator (one aggregator per node): the blocks of
//                     the aggregator's ranks, step after step, back to back
//   run.bp/md.idx     IndexHeader, then one BlockRecord per block (steps x variables x ranks)
//
// All fields little-endian, no padding.
#pragma once

#include <cstdint>

namespace bp {

inline constexpr char kMagic[8] = {'B', 'P', 'I', 'D', 'X', '0', '1', '\0'};

struct IndexHeader {
  char magic[8];
  int32_t writers;    // ranks of the writing run
  int32_t steps;
  int32_t variables;
  int32_t subfiles;
  int64_t blocks;     // BlockRecords that follow
};
static_assert(sizeof(IndexHeader) == 32);

struct BlockRecord {
  int32_t variable;   // 0 temperature, 1 pressure
  int32_t step;
  int32_t writer;     // rank that produced the block
  int32_t subfile;    // data.<subfile>
  int64_t offset;     // bytes into the subfile
  int64_t nbytes;
  int64_t start;      // first global index of the block
  int64_t count;      // doubles
  double min, max;
};
static_assert(sizeof(BlockRecord) == 64);

// The value of global element i of a variable at a step.
inline double Value(int variable, int step, int64_t i) {
  return variable == 0 ? 250.0 + 0.001 * static_cast<double>(i % 100000) + step
                       : 1.0e5 - 0.5 * static_cast<double>(i % 7919) - 10.0 * step;
}

}  // namespace bp
