// Startup checks of the daemon: a usable mount point, and a root that only one daemon owns.
//
// Thread-safety: call from the main thread before serving.
#pragma once

#include <string>

#include "fs/base/status.h"

namespace bb::fs {

// OK when `mount` is an existing, empty-or-not directory that nothing is mounted on.
// ENOENT when missing; ENOTDIR when not a directory; EBUSY when already mounted (naming the
// file system there); ENOTCONN for a stale FUSE mount (with the command that clears it).
Status CheckMountPoint(const std::string& mount);

// Creates `root` if needed and takes an exclusive lock on <root>/bbd.lock, recording this
// process id in it. Returns the lock's descriptor (kept open for the daemon's life).
// EBUSY naming the holder's pid when another daemon has the root; the errno of mkdir/open
// otherwise.
Result<int> LockRoot(const std::string& root);

}  // namespace bb::fs
