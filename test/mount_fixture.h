// MountedBb: a real bbd process serving a real FUSE mount, for mounted tests.
//
// The daemon runs in the foreground as a child of the test, with PR_SET_PDEATHSIG so it unmounts
// itself if the test dies. The destructor always stops it (SIGTERM, then SIGKILL after a
// deadline), detaches any mount that is left and removes the temporary folder, also when the
// test failed.
//
// Thread-safety: one test thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace bb::test {

class MountedBb {
 public:
  // Creates <tmp>/root and <tmp>/mnt and starts bbd on them with `extra_args`.
  // `root_override`: serve this root instead of <tmp>/root (it is not removed afterwards).
  explicit MountedBb(std::vector<std::string> extra_args = {}, std::string root_override = "");
  ~MountedBb();
  MountedBb(const MountedBb&) = delete;
  MountedBb& operator=(const MountedBb&) = delete;

  const std::string& mnt() const { return mnt_; }
  const std::string& root() const { return root_; }
  std::string Path(const std::string& rel) const { return mnt_ + "/" + rel; }

  // Starts bbd; returns false (and records why in error()) when it is not mounted in 10 s.
  bool Start();
  // SIGTERM and wait: a clean unmount.
  void Stop();
  // SIGKILL: the daemon dies without unmounting; the stale mount is detached.
  void Kill9();
  bool running() const { return pid_ > 0; }
  const std::string& error() const { return error_; }

  static bool IsMounted(const std::string& path);
  static std::string BbdPath();

 private:
  void Cleanup();

  std::string tmp_, root_, mnt_, error_;
  bool own_root_ = true;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
};

// Runs a shell command; returns its exit status (or -1).
int Sh(const std::string& cmd);
// Runs bbd with `args` to completion; returns the exit status and fills `output` with stderr.
int RunBbd(const std::vector<std::string>& args, std::string* output);

}  // namespace bb::test
