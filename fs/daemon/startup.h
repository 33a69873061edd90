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

// Makes `root` and what a previous run left in it private to its owner: the folder and its
// folders 0700, the files at its top and in the metadata database 0600 (nothing below a 0700
// folder is reachable by others). EPERM naming the entry when one cannot be changed.
Status MakePrivate(const std::string& root);

// Creates `root` if needed, makes it private (MakePrivate), and takes an exclusive lock on <root>/bbd.lock, recording
// this process id in it. Returns the lock's descriptor (kept open for the daemon's life). EBUSY naming the holder's pid
// when another daemon has the root; the errno of mkdir/open otherwise.
Result<int> LockRoot(const std::string& root);

}  // namespace bb::fs
