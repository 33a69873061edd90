// CreateStreams: processes making small files one after another in one directory (mdtest, tar
// and cp -r of small files, a code writing a file per step or per rank), recognised from what this
// node saw them do, so that their next file is made the cheap way: its name reserved as the
// kernel looks it up and its entry made here (DeferredCreates), its writes going through at once
// and its close sending nothing (no FLUSH: FOPEN_NOFLUSH).
//
// A stream is a (process, directory) pair. It expects its next file small when it made a file in
// that directory within the window, and none of its files there turned out large within the
// window: written past its first chunk, or in more than kMaxSmallWrites writes (where writes
// going through one by one would cost more than writes behind gathered together). The first file
// of a stream is made the usual way.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace bb::fs {

class CreateStreams {
 public:
  // A file with more writes than this is not small.
  static constexpr uint32_t kMaxSmallWrites = 4;
  static constexpr int64_t kWindowNs = 10'000'000'000;
  // Streams remembered at most (the oldest half goes past it).
  static constexpr size_t kCapacity = 4096;

  // Whether the next file `pid` makes in `dir` at `now_ns` (monotonic) is expected small.
  bool ExpectSmall(pid_t pid, std::string_view dir, int64_t now_ns) const;
  // `pid` made a file in `dir`: returns whether the stream expected it small (ExpectSmall just
  // before).
  bool Created(pid_t pid, std::string_view dir, int64_t now_ns);
  // A file `pid` made in `dir` turned out large.
  void Large(pid_t pid, std::string_view dir, int64_t now_ns);

 private:
  struct Stream {
    int64_t created_ns = 0;
    int64_t large_ns = INT64_MIN / 2;
  };
  static std::string Key(pid_t pid, std::string_view dir);
  static bool Small(const Stream& s, int64_t now_ns);
  // REQUIRES mu_. Makes room past kCapacity.
  void TrimLocked(int64_t now_ns);

  mutable std::mutex mu_;  // guards streams_
  std::unordered_map<std::string, Stream> streams_;
};

}  // namespace bb::fs
