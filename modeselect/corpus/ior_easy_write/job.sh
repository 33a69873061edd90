#!/bin/bash
#SBATCH --job-name=ior-easy
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# IOR "easy" write: one file per process, 1 MiB sequential transfers, fsync at the end of
# the phase; every rank checks its own data after writing it (-W).
set -euo pipefail

TRANSFER=1m
BLOCK=16m
TESTFILE="$BB_MOUNT/ior_easy"

echo "ior-easy: $SLURM_NTASKS tasks on $SLURM_NNODES nodes, $BLOCK per task"
srun ior -a POSIX -w -W -F -e -g -G 271828 -t "$TRANSFER" -b "$BLOCK" -o "$TESTFILE"
