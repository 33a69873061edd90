// Names the calling thread (at most 15 characters), as `top -H`, `ps -L` and perf show it.
#pragma once

#include <pthread.h>

namespace bb {

inline void NameThread(const char* name) { (void)pthread_setname_np(pthread_self(), name); }

}  // namespace bb
