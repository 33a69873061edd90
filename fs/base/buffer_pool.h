// Reusable buffers for chunk-sized data: the transport's received requests, the core's
// write-behind copies.
//
// Why: a large allocation can be a fresh mmap in glibc, and the first write to each of its pages
// is then a page fault: 1.3-1.8 ms per 512 KiB on this paravirtualised guest, against 4-5 µs to
// refill a reused buffer (bb-page-fault-bench). The transport's receive buffers met it whenever
// two messages were in flight at once (the arenas of different threads then hand their memory
// back to the kernel after each message). Buffers taken from here were faulted in once and
// stay mapped.
//
// Sizes are rounded up to a power of two (at least kMinBytes); up to `max_cached_bytes` of free
// buffers are kept, larger ones and the rest are freed. Thread-safe.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace bb {

class BufferPool {
 public:
  static constexpr size_t kMinBytes = 4096;

  explicit BufferPool(size_t max_cached_bytes) : max_cached_(max_cached_bytes) {}
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Gives the buffer back to its pool when it is dropped.
  class Returner {
   public:
    Returner() = default;
    Returner(BufferPool* pool, size_t capacity) : pool_(pool), capacity_(capacity) {}
    void operator()(char* p) const {
      if (pool_ != nullptr) {
        pool_->Put(p, capacity_);
      } else {
        delete[] p;
      }
    }
    size_t capacity() const { return capacity_; }

   private:
    BufferPool* pool_ = nullptr;
    size_t capacity_ = 0;
  };
  using Buffer = std::unique_ptr<char[], Returner>;

  // A buffer of at least `n` bytes, uninitialised (a reused one holds old data).
  Buffer Get(size_t n) {
    const size_t capacity = Capacity(n);
    {
      std::lock_guard lock(mu_);
      for (size_t i = 0; i < free_.size(); ++i) {
        if (free_[i].capacity == capacity) {
          char* p = free_[i].data;
          free_[i] = free_.back();
          free_.pop_back();
          cached_ -= capacity;
          return Buffer(p, Returner(this, capacity));
        }
      }
    }
    return Buffer(new char[capacity], Returner(this, capacity));  // default-initialised
  }

  // Puts up to `count` buffers of at least `bytes` each, every page touched, among the free
  // ones (within max_cached_bytes): the first users then pay no page faults.
  void Prefault(size_t bytes, size_t count) {
    const size_t capacity = Capacity(bytes);
    count = std::min(count, (max_cached_ - cached_bytes()) / capacity);
    for (size_t i = 0; i < count; ++i) {
      char* p = new char[capacity];
      std::memset(p, 0, capacity);
      Put(p, capacity);
    }
  }

  // Bytes of free buffers held now.
  size_t cached_bytes() const {
    std::lock_guard lock(mu_);
    return cached_;
  }

  ~BufferPool() {
    for (const Free& f : free_) delete[] f.data;
  }

 private:
  static size_t Capacity(size_t n) { return std::bit_ceil(n < kMinBytes ? kMinBytes : n); }

  struct Free {
    char* data;
    size_t capacity;
  };

  void Put(char* p, size_t capacity) {
    {
      std::lock_guard lock(mu_);
      if (cached_ + capacity <= max_cached_) {
        free_.push_back({p, capacity});
        cached_ += capacity;
        return;
      }
    }
    delete[] p;
  }

  const size_t max_cached_;
  mutable std::mutex mu_;  // guards free_ and cached_
  std::vector<Free> free_;
  size_t cached_ = 0;
};

}  // namespace bb
