#!/bin/bash
#SBATCH --job-name=solver-cr
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Application checkpoint/restart: the solver checkpoints every 2 steps (each rank into its
# own directory, keeping the last two), then a second run restarts from the newest
# checkpoints with the same task layout and goes on.
set -euo pipefail

CKPT_DIR="$BB_MOUNT/checkpoints"
CELLS=$((256 * 1024))          # 2 MiB of state per rank
OPTS="--ckpt-dir $CKPT_DIR --cells $CELLS --every 2"

srun ./bin/solver $OPTS --steps 6
srun ./bin/solver $OPTS --steps 2 --restart
