#!/bin/bash
# A checkpoint and a restart on other nodes: every rank writes its state, then the job restarts
# with the tasks placed round robin, so each rank reads a checkpoint another node wrote.
#SBATCH --job-name=ckpt-restart
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:05:00
set -e
CKPT_DIR=$BB_MOUNT/checkpoints
SIZE_MIB=${SIZE_MIB:-32}
mkdir -p "$CKPT_DIR"
srun ./bin/ckpt write "$CKPT_DIR" "$SIZE_MIB"
srun --distribution=cyclic ./bin/ckpt restart "$CKPT_DIR" "$SIZE_MIB"
