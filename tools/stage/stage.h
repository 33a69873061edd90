// Staging data into and out of the burst buffer (`bbctl stage in|out SRC DST`): a tree or a file
// copied by a pool of threads, large files in pieces, every file verified, a manifest beside the
// destination, and a second run copying only what is missing or differs.
//
// What "verified" means: each piece's XXH3-64 is taken of the bytes read from the source; after
// the file is written and closed, it is opened again and read back, and every piece must hash
// the same (a file's hash is the XXH3-64 of its pieces' hashes, recorded in the manifest with
// its size and source mtime). A file counts as staged only then. Kept as `cp -a` keeps them:
// directories, symlinks (their targets, not followed), FIFOs, permissions, access and
// modification times, and owners when run as root. Sockets and device nodes are not staged
// (listed as failures).
//
// Resuming: with a manifest from an earlier run (the default `<DST>.bbstage.json`, or
// --manifest), a file whose source size and mtime match its manifest entry and whose
// destination reads back with the recorded hash is not copied again; anything else is.
//
// Thread-safety: Stage runs its own threads; one Stage call per destination at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fs/base/status.h"

namespace bb::stage {

enum class Kind : uint8_t { kFile, kDir, kSymlink, kFifo, kOther };

// One entry of the source tree, `rel` relative to its root ("" for the root itself).
struct Entry {
  std::string rel;
  Kind kind = Kind::kFile;
  uint64_t size = 0;
  mode_t mode = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  int64_t atime_ns = 0, mtime_ns = 0;
  std::string target;  // a symlink's
};

// The tree below `root` (or the file `root`), parents before children, in name order.
// ENOENT/EACCES name the path that could not be read.
Result<std::vector<Entry>> Walk(const std::string& root);

// [offset, length) pieces of a `size`-byte file, `piece` bytes each but the last; one empty
// piece for an empty file. REQUIRES: piece > 0.
std::vector<std::pair<uint64_t, uint64_t>> Pieces(uint64_t size, uint64_t piece);

// A file's hash from its pieces' hashes (pure).
uint64_t FileHash(const std::vector<uint64_t>& piece_hashes);

// What the manifest says of one file.
struct ManifestFile {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t hash = 0;
};

struct Manifest {
  std::string source, destination;
  uint64_t piece_bytes = 0;
  std::vector<std::pair<std::string, ManifestFile>> files;  // by rel, in Walk order
};

// JSON (version 1). Parse errors are EINVAL naming `where` and the field.
std::string FormatManifest(const Manifest& m);
Result<Manifest> ParseManifest(const std::string& text, const std::string& where);

struct Options {
  std::string src, dst;
  std::string manifest;  // "": <dst>.bbstage.json
  int threads = 8;
  uint64_t piece_bytes = uint64_t{64} << 20;
};

struct Progress {
  uint64_t files_done = 0, files_total = 0, bytes_done = 0, bytes_total = 0;
  double seconds = 0;
};

struct Report {
  Progress progress;
  uint64_t files_copied = 0, files_verified_already = 0, bytes_copied = 0;
  std::string manifest;
  std::vector<std::string> failures;  // "PATH: why", one per file not staged
};

// Stages `o.src` to `o.dst`; `on_progress` (may be empty) is called about once a second from
// another thread. The Result is an error only when nothing could start (no source, a bad
// manifest, a destination that cannot be made); files that fail are in Report::failures.
Result<Report> Stage(const Options& o, const std::function<void(const Progress&)>& on_progress);

}  // namespace bb::stage
