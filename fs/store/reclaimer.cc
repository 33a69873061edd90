#include "fs/store/reclaimer.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fs/base/thread_name.h"
#include "fs/store/dir_names.h"

namespace bb::fs {
namespace {

constexpr auto kReclaimWait = std::chrono::seconds(10);
// Removals must have paused this long, or this many folders wait (about 40 bytes each).
constexpr auto kReclaimQuiet = std::chrono::milliseconds(500);
constexpr size_t kReclaimBacklog = 100000;

}  // namespace

Reclaimer::Reclaimer(int dir_fd) : dir_fd_(dir_fd) {
  // Removals a previous run did not finish.
  for (std::string& name : ListNames(::openat(dir_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC))) {
    if (name.size() > 4 && name.ends_with(kRemovedSuffix)) removed_.push_back(std::move(name));
  }
  thread_ = NamedThread("bb-reclaim", [this] { Loop(); });
}

Reclaimer::~Reclaimer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Reclaimer::Add(std::string name) {
  {
    std::lock_guard lock(mu_);
    removed_.push_back(std::move(name));
    last_remove_ = std::chrono::steady_clock::now();
    // Wake the thread only when it sleeps for want of work or the backlog is full; during a
    // burst of removals it waits for the pause on its own.
    if (removed_.size() != 1 && removed_.size() < kReclaimBacklog) return;
  }
  cv_.notify_all();
}

bool Reclaimer::WaitForSpace() {
  std::unique_lock lock(mu_);
  if (removed_.empty() && !reclaiming_) return false;
  space_wanted_ = true;
  cv_.notify_all();
  cv_.wait_for(lock, kReclaimWait, [&] { return removed_.empty() && !reclaiming_; });
  return true;
}

void Reclaimer::Loop() {
  // Reclaiming space is background work: at the lowest CPU priority (a thread's nice value is
  // its own on Linux), file operations that wait for an answer go first. The deletes it issues
  // also free blocks, which with a `discard` mount means device trims.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !removed_.empty(); });
    // Deleting competes with the file operations for the disk and the folder's lock, so it
    // waits for a pause in removals, unless the backlog is full or a writer needs the space.
    while (!stopping_ && !space_wanted_ && removed_.size() < kReclaimBacklog) {
      auto quiet = last_remove_ + kReclaimQuiet;
      if (std::chrono::steady_clock::now() >= quiet) break;
      cv_.wait_until(lock, quiet);
    }
    if (stopping_) return;  // what is left is finished at the next start
    std::string name = std::move(removed_.front());
    removed_.pop_front();
    reclaiming_ = true;
    lock.unlock();
    Delete(name);
    lock.lock();
    reclaiming_ = false;
    if (removed_.empty()) space_wanted_ = false;
    cv_.notify_all();
  }
}

void Reclaimer::Delete(const std::string& name) {
  for (const std::string& chunk : ListNames(::openat(dir_fd_, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC))) {
    ::unlinkat(dir_fd_, (name + "/" + chunk).c_str(), 0);
  }
  ::unlinkat(dir_fd_, name.c_str(), AT_REMOVEDIR);
}

}  // namespace bb::fs
