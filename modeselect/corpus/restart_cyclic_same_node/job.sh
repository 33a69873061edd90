#!/bin/bash
#SBATCH --job-name=heat1d
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --distribution=cyclic
#SBATCH --time=00:02:00
# 1-D heat solver with checkpoints in a directory per rank (the two newest kept); the
# restart runs as a second step under mpirun, mapped by node as the first step was
# distributed, and continues from each rank's newest checkpoint.
set -euo pipefail

CKPT=$BB_MOUNT/heat1d/ckpt
STEPS=60
EVERY=12

srun --distribution=cyclic ./bin/heat_ckpt run "$CKPT" $STEPS $EVERY | sort -t'[' -k2n
mpirun -np $SLURM_NTASKS --map-by node ./bin/heat_ckpt restart "$CKPT" $STEPS $EVERY | sort -t'[' -k2n
rmdir "$CKPT" "$BB_MOUNT/heat1d" 2>/dev/null || true
