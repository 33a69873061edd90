#!/bin/bash
#SBATCH --job-name=shrink-restart
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Checkpoint on 4 nodes, restart on 2: the solver writes a checkpoint piece per rank (8
# pieces), the restarted run with 4 ranks on half the nodes finds the latest checkpoint,
# reads two pieces per rank, checks them, carries on and writes its own checkpoint.
set -euo pipefail

CKPT=$BB_MOUNT/ckpt
trap 'rm -rf "$CKPT"' EXIT

srun --nodes=4 --ntasks=8 ./bin/solver run "$CKPT" 10
srun --nodes=2 --ntasks=4 --ntasks-per-node=2 ./bin/solver restart "$CKPT" 5
cat "$CKPT/LATEST"
