#!/bin/bash
#SBATCH --job-name=smallfile-storm
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Small-file storm in one shared directory: 4 tasks x 160 files of 1 KiB, listed from the
# batch shell; then every task checks its neighbour's files, and at last removes its own.
set -euo pipefail

BUCKET="${BB_MOUNT}/bucket"
FILES_PER_TASK=160
mkdir -p "$BUCKET"

srun python3 storm.py create "$BUCKET" $FILES_PER_TASK

count=$(ls "$BUCKET" | wc -l)
expected=$((SLURM_NTASKS * FILES_PER_TASK))
echo "bucket holds $count files"
if [ "$count" -ne "$expected" ]; then
  echo "expected $expected files in $BUCKET" >&2
  exit 1
fi

srun python3 storm.py check "$BUCKET" $FILES_PER_TASK
srun python3 storm.py remove "$BUCKET" $FILES_PER_TASK
rmdir "$BUCKET"
