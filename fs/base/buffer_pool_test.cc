#include "fs/base/buffer_pool.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstring>
#include <thread>
#include <vector>

namespace bb {
namespace {

TEST_CASE("buffers are rounded up to a power of two and reused", "[base]") {
  BufferPool pool(4 << 20);
  char* first;
  {
    auto b = pool.Get(300 * 1024);
    CHECK(b.get_deleter().capacity() == 512 * 1024);
    first = b.get();
    b[300 * 1024 - 1] = 'x';  // the whole asked size is writable
  }
  CHECK(pool.cached_bytes() == 512 * 1024);
  auto again = pool.Get(400 * 1024);  // same size class: the same memory
  CHECK(again.get() == first);
  CHECK(pool.cached_bytes() == 0);
  auto small = pool.Get(1);
  CHECK(small.get_deleter().capacity() == BufferPool::kMinBytes);
  auto other = pool.Get(600 * 1024);  // another class: fresh memory
  CHECK(other.get_deleter().capacity() == 1024 * 1024);
  CHECK(other.get() != first);
}

TEST_CASE("the pool keeps at most its limit of free buffers", "[base]") {
  BufferPool pool(1 << 20);
  {
    std::vector<BufferPool::Buffer> held;
    for (int i = 0; i < 4; ++i) held.push_back(pool.Get(512 * 1024));
  }
  CHECK(pool.cached_bytes() == 1 << 20);  // two kept, two freed
  BufferPool none(0);
  { auto b = none.Get(4096); }
  CHECK(none.cached_bytes() == 0);
}

TEST_CASE("prefaulted buffers are handed out first, within the limit", "[base]") {
  BufferPool pool(1 << 20);
  pool.Prefault(512 * 1024, 5);  // room for two
  CHECK(pool.cached_bytes() == 1 << 20);
  auto a = pool.Get(512 * 1024);
  auto b = pool.Get(500 * 1024);
  CHECK(pool.cached_bytes() == 0);
  CHECK(a.get() != b.get());
}

TEST_CASE("threads taking and returning buffers never share one", "[base]") {
  BufferPool pool(8 << 20);
  std::vector<std::thread> threads;
  std::atomic<int> clashes{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        auto b = pool.Get(64 * 1024);
        std::memset(b.get(), t, 64 * 1024);
        std::this_thread::yield();
        for (size_t k = 0; k < 64 * 1024; k += 4096) {
          if (b[k] != static_cast<char>(t)) clashes++;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(clashes == 0);
  CHECK(pool.cached_bytes() <= 8 << 20);
}

}  // namespace
}  // namespace bb
