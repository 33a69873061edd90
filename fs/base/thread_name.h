// Threads named as `top -H`, `ps -L` and perf show them (at most 15 characters), and what the
// kernel says of a thread of this process, for a log line about a thread that is held up.
#pragma once

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <string>
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

// The calling thread's id, as /proc/self/task/ names it.
inline pid_t ThreadId() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// "R" (running or runnable), or "S waiting in <kernel function>" (the thread's state and wchan
// from /proc), and its kernel stack's first frames where the process may read it (root):
// "... [futex_wait_queue <- futex_wait <- do_futex]". "" when the thread is gone.
inline std::string KernelThreadState(pid_t tid) {
  const std::string dir = "/proc/self/task/" + std::to_string(tid);
  std::ifstream stat(dir + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return "";
  std::string out(1, text[paren + 2]);
  std::ifstream wchan_in(dir + "/wchan");
  std::string wchan;
  std::getline(wchan_in, wchan);
  if (!wchan.empty() && wchan != "0") out += " waiting in " + wchan;
  std::ifstream stack(dir + "/stack");
  std::string frames;
  int n = 0;
  for (std::string line; n < 4 && std::getline(stack, line); ++n) {
    size_t name = line.find("] ");
    std::string fn = line.substr(name == std::string::npos ? 0 : name + 2);
    fn = fn.substr(0, fn.find('+'));
    frames += (frames.empty() ? "" : " <- ") + fn;
  }
  if (!frames.empty()) out += " [" + frames + "]";
  return out;
}

}  // namespace bb
