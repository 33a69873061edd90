// What the chunk-removal journal costs (fs/core/data/chunk_removals.h): the CPU time per removal of
// ChunkRemovals::Note (on the unlink's FUSE request path) and of its share of Flush (on the
// flusher thread), with the journal in LevelDB against none, interleaved over rounds.
//
//   bb-chunk-removal-bench [--removals N] [--rounds R]
// Prints one line per round and variant, then "median_us memory <M> journal <J>" (Note and Flush
// together, per removal).
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "fs/base/temp_dir.h"
#include "fs/core/data/chunk_removals.h"

namespace {

double CpuMicros() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-chunk-removal-bench: CPU per chunk removal, with and without its LevelDB journal"};
  int removals = 4096;
  int rounds = 7;
  app.add_option("--removals", removals, "removals per round and variant (one flush each)")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "rounds")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  bb::TempDir dir("bb-chunk-removal-bench");
  auto store = bb::fs::OpenLevelDbMetaStore(dir.path + "/meta");
  if (!store) {
    std::fprintf(stderr, "bb-chunk-removal-bench: %s\n", store.error().message().c_str());
    return 1;
  }
  auto send = [](bb::fs::NodeId, const std::vector<uint64_t>&) { return bb::Status::Ok(); };
  std::vector<double> per_variant[2];
  uint64_t file_id = 1;
  for (int round = 0; round < rounds; ++round) {
    for (int journaled = 0; journaled < 2; ++journaled) {
      bb::fs::ChunkRemovals r(send, std::chrono::milliseconds(0), static_cast<size_t>(removals),
                              journaled ? store->get() : nullptr);
      double t0 = CpuMicros();
      for (int i = 0; i < removals; ++i) r.Note(1 + i % 3, file_id++);
      double note = (CpuMicros() - t0) / removals;
      t0 = CpuMicros();
      (void)r.Flush();
      double flush = (CpuMicros() - t0) / removals;
      per_variant[journaled].push_back(note + flush);
      std::printf("round %d %s: note_us %.2f flush_us %.2f\n", round, journaled ? "journal" : "memory", note, flush);
    }
  }
  std::printf("median_us memory %.2f journal %.2f\n", Median(per_variant[0]), Median(per_variant[1]));
  return 0;
}
