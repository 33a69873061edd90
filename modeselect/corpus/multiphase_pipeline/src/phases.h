// The file phases of the pipeline; main.cc sequences them between barriers.
#pragma once
#include <cstdint>
#include <string>

struct Manifest {
  int ranks = 0;
  int64_t bytes_per_rank = 0;
  uint64_t seed = 0;
};

void WriteManifest(const std::string& run_dir, const Manifest& m);    // rank 0
Manifest ReadManifest(const std::string& run_dir);                    // every rank
void WritePart(const std::string& run_dir, int rank, const Manifest& m);
// Reads this rank's part back; returns the sum of its words (throws if a word is wrong).
uint64_t ReadPart(const std::string& run_dir, int rank, const Manifest& m);
void WriteSummary(const std::string& run_dir, const Manifest& m, uint64_t total);
