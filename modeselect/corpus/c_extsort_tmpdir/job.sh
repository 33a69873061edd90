#!/bin/bash
#SBATCH --job-name=extsort
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Out-of-core sort: the job points TMPDIR at the burst buffer, and every task sorts its own
# records through temporary run files in a private directory it makes there with mkdtemp;
# each task checks its output and removes its files.
set -euo pipefail

export TMPDIR=$BB_MOUNT/tmp
mkdir -p "$TMPDIR"
RECORDS=196608
RUN=16384

srun --kill-on-bad-exit=1 ./bin/extsort $RECORDS $RUN
rmdir "$TMPDIR" 2>/dev/null || true
