// What a buffer pool saves: the time to fill a freshly mapped buffer, whose every page faults on
// first touch (what glibc hands out when it maps a large allocation anew, as it did for the
// transport's receive buffers with two arenas giving memory back), against refilling one taken
// back from a BufferPool.
//
//   bb-page-fault-bench [--size BYTES] [--rounds N]
// Prints "size_bytes <S> fresh_us <mean> reused_us <mean>": the mean time to fill one buffer,
// freshly mapped each time (mmap, fill, munmap) and reused from a pool.
#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "fs/base/buffer_pool.h"

namespace {

double FreshMicros(size_t size, int rounds) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i) {
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    std::memset(p, i, size);
    ::munmap(p, size);
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / rounds;
}

double ReusedMicros(bb::BufferPool& pool, size_t size, int rounds) {
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < rounds; ++i) {
    auto b = pool.Get(size);
    std::memset(b.get(), i, size);
  }
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / rounds;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bb-page-fault-bench: a fresh buffer against a reused one"};
  size_t size = 512 * 1024;
  int rounds = 200;
  app.add_option("--size", size, "buffer size, bytes");
  app.add_option("--rounds", rounds, "buffers per measurement");
  CLI11_PARSE(app, argc, argv);
  bb::BufferPool pool(2 * size);
  ReusedMicros(pool, size, 1);  // fault it in once
  double fresh = FreshMicros(size, rounds);
  double reused = ReusedMicros(pool, size, rounds);
  std::printf("size_bytes %zu fresh_us %.1f reused_us %.1f\n", size, fresh, reused);
  return 0;
}
