#!/usr/bin/env bash
# The test command: installs the Debian packages, builds, and runs every test with ctest.
# Mounted tests (label "mounted") need root and /dev/fuse; without them they are left out and
# the script says so. Extra arguments go to ctest (e.g. -L mounted, -R core).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
./tools/build.sh
args=(--test-dir build --output-on-failure --timeout 900)
if [ "$(id -u)" -ne 0 ] || [ ! -e /dev/fuse ]; then
  echo "test.sh: not root or no /dev/fuse: leaving out the mounted tests"
  args+=(-LE mounted)
fi
ctest "${args[@]}" "$@"
