// Threads named as `top -H`, `ps -L` and perf show them (at most 15 characters).
#pragma once

#include <pthread.h>

#include <thread>
#include <utility>

namespace bb {

inline void NameThread(const char* name) { (void)pthread_setname_np(pthread_self(), name); }

// A thread named `name` that runs `body`.
template <class F>
std::thread NamedThread(const char* name, F&& body) {
  return std::thread([name, body = std::forward<F>(body)]() mutable {
    NameThread(name);
    body();
  });
}

}  // namespace bb
