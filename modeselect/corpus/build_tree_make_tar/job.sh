#!/bin/bash
#SBATCH --job-name=build-farm
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Build farm: every task checks out a source tree of its own (12 modules of 6 sources), builds
# it with make, and checks that a second make finds nothing to do; the batch shell then packs
# all build trees into one tar archive and checks the archive's members.
set -euo pipefail

BUILD=$BB_MOUNT/build
ARCHIVE=$BB_MOUNT/build_artifacts.tar
MODULES=12
SOURCES=6
trap 'rm -rf "$BUILD" "$ARCHIVE"' EXIT

srun --ntasks-per-node=1 ./build_task.sh "$BUILD" $MODULES $SOURCES

tar -C "$BB_MOUNT" -cf "$ARCHIVE" build
objects=$(tar -tf "$ARCHIVE" | grep -c '\.o$' || true)
expected=$((SLURM_NTASKS * MODULES * SOURCES))
echo "build-farm: $(stat -c %s "$ARCHIVE") bytes in the archive, $objects objects"
if [ "$objects" -ne "$expected" ]; then
  echo "build-farm: the archive has $objects objects, expected $expected" >&2
  exit 1
fi
for ((t = 0; t < SLURM_NTASKS; t++)); do
  want=$(tar -xOf "$ARCHIVE" "build/task$t/app.cksum")
  got=$(tar -xOf "$ARCHIVE" "build/task$t/app" | cksum)
  if [ "$want" != "$got" ]; then
    echo "build-farm: build/task$t/app in the archive does not match its checksum" >&2
    exit 1
  fi
done
