#!/bin/bash
#SBATCH --job-name=fio-n1
#SBATCH -N 4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# One shared file: each node writes its own 16 MiB slice of it (N-1 write), then every node
# does 4 KiB random I/O over the whole file, 30 % reads and 70 % writes.
set -euo pipefail

export SLICE_MB=16
FILE=$BB_MOUNT/n1_shared.dat

srun ./phase.sh write "$FILE"

expected=$((SLURM_NTASKS * SLICE_MB * 1024 * 1024))
size=$(stat -c %s "$FILE")
if [ "$size" -ne "$expected" ]; then
  echo "fio-n1: $FILE has $size bytes after the write phase, expected $expected" >&2
  exit 1
fi

srun ./phase.sh mixed "$FILE"
