// What a small file's chunk costs the node that holds it (fs/store/chunk_store.h): written once and
// removed, through the posix chunk store alone (a folder and a segment file per file) against the
// same store with small chunks in LevelDB, interleaved over rounds, on the file system of --dir.
// CPU is the whole process's (getrusage: LevelDB's compaction and the reclaimer's threads
// included), from the first write until the removed folders are gone and the stores closed
// (compaction LevelDB had not begun by then is not counted).
//
//   bb-small-chunk-bench [--files N] [--bytes B] [--grow G] [--rounds R] [--dir DIR]
// Prints one line per round and variant, then "median_us segments <S> leveldb <L>" (per file,
// write and removal together). With --grow, each file then gets a second write of G bytes after
// its first, timed apart by the wall clock ("grow_wall_us"): past kInlineChunkMax in all, it moves
// a LevelDB value to its segment (written and synced there) in the one variant.
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fs/store/chunk_store.h"
#include "fs/store/meta_store.h"

namespace {

double CpuMicros() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Folders of files still in the chunk folder (removed ones wait for the reclaimer).
size_t FileFolders(const std::string& chunks) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(chunks)) n += e.is_directory();
  return n;
}

double WallMicros() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

struct Phases {
  double write_us, remove_us, grow_wall_us;
};

bb::Result<Phases> Run(const std::string& dir, bool in_leveldb, int files, size_t bytes, size_t grow) {
  auto kv = bb::fs::OpenLevelDbMetaStore(dir + "/meta");
  if (!kv) return kv.error();
  auto chunks = bb::fs::OpenPosixChunkStore(dir, 0, 1024, in_leveldb ? kv->get() : nullptr);
  if (!chunks) return chunks.error();
  std::string data(bytes, 'x');
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>(i * 2654435761u >> 13);  // not compressible
  constexpr uint64_t kChunk = 512 << 10;
  double t0 = CpuMicros();
  for (int f = 1; f <= files; ++f) {
    if (auto s = (*chunks)->Write(f, kChunk, 0, 0, data); !s.ok()) return s;
  }
  double t1 = CpuMicros();
  double grow_wall = 0;
  if (grow > 0) {
    std::string more(grow, 'y');
    double w0 = WallMicros();
    for (int f = 1; f <= files; ++f) {
      if (auto s = (*chunks)->Write(f, kChunk, 0, bytes, more); !s.ok()) return s;
    }
    grow_wall = (WallMicros() - w0) / files;
    t1 = CpuMicros();
  }
  for (int f = 1; f <= files; ++f) {
    if (auto s = (*chunks)->Remove(f); !s.ok()) return s;
  }
  while (FileFolders(dir + "/chunks") > 0) ::usleep(10000);
  chunks->reset();
  kv->reset();
  double t2 = CpuMicros();
  return Phases{(t1 - t0) / files, (t2 - t1) / files, grow_wall};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-small-chunk-bench: CPU per small file's chunk, in segment files against in LevelDB"};
  int files = 10000;
  size_t bytes = 3901;
  size_t grow = 0;
  int rounds = 5;
  std::string where = "/tmp";
  app.add_option("--files", files, "files per round and variant")->check(CLI::PositiveNumber);
  app.add_option("--bytes", bytes, "bytes of each file's one write")->check(CLI::Range(size_t{1}, size_t{512 << 10}));
  app.add_option("--grow", grow, "bytes of a second write after the first (0: none)")
      ->check(CLI::Range(size_t{0}, size_t{512 << 10}));
  app.add_option("--rounds", rounds, "rounds")->check(CLI::PositiveNumber);
  app.add_option("--dir", where, "a folder on the file system to measure (a scratch folder is made in it)");
  CLI11_PARSE(app, argc, argv);
  std::vector<double> total[2];
  for (int round = 0; round < rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      bool in_leveldb = (k + round) % 2 == 1;  // which goes first alternates
      std::string scratch = where + "/bb-small-chunk-bench-XXXXXX";
      if (::mkdtemp(scratch.data()) == nullptr) {
        std::perror(("bb-small-chunk-bench: " + where).c_str());
        return 1;
      }
      auto p = Run(scratch, in_leveldb, files, bytes, grow);
      std::filesystem::remove_all(scratch);
      if (!p) {
        std::fprintf(stderr, "bb-small-chunk-bench: %s\n", p.error().message().c_str());
        return 1;
      }
      total[in_leveldb].push_back(p->write_us + p->remove_us);
      std::printf("round %d %s: write_us %.1f remove_us %.1f grow_wall_us %.1f\n", round,
                  in_leveldb ? "leveldb" : "segments", p->write_us, p->remove_us, p->grow_wall_us);
    }
  }
  std::printf("median_us segments %.1f leveldb %.1f\n", Median(total[0]), Median(total[1]));
  return 0;
}
