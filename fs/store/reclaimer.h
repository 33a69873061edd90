// Private to fs/store: the background deletion of removed chunk folders.
//
// Removing a file's chunks is one rename (<file id>/ becomes <file id>.del/, see
// posix_chunk_store.cc); this thread deletes what the .del folders hold. It starts once removals
// have paused for half a second, or at once when 100,000 folders wait or a writer finds the
// store full (WaitForSpace), at the lowest CPU priority, so a burst of deletes does not compete
// with its own space reclaim. Folders left by an earlier run are found at start and finished.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace bb::fs {

inline constexpr char kRemovedSuffix[] = ".del";

class Reclaimer {
 public:
  // Deletes .del folders of the directory `dir_fd` (which must outlive this), those there now
  // included.
  explicit Reclaimer(int dir_fd);
  // Stops; what is left is finished at the next start.
  ~Reclaimer();
  Reclaimer(const Reclaimer&) = delete;
  Reclaimer& operator=(const Reclaimer&) = delete;

  // Queues the folder `name` (a .del folder of dir_fd).
  void Add(std::string name);
  // A writer found the store full: reclaim without waiting for a pause, and wait (at most
  // 10 s) until nothing is left to delete. False when there was nothing to reclaim.
  bool WaitForSpace();

 private:
  void Loop();
  void Delete(const std::string& name);

  const int dir_fd_;
  std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::deque<std::string> removed_;  // .del folders waiting to be deleted
  std::chrono::steady_clock::time_point last_remove_;
  bool reclaiming_ = false;    // deleting one right now
  bool space_wanted_ = false;  // a writer waits for space: reclaim without pausing
  bool stopping_ = false;
  std::thread thread_;  // last: started after everything it uses
};

}  // namespace bb::fs
