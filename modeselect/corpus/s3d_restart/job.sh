#!/bin/bash
#SBATCH --job-name=s3d-restart
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# S3D-like run and restart: the first run writes one restart file per rank (block
# placement); the restart run places the ranks round-robin over the nodes and reads them.
set -euo pipefail

RESTART_DIR=$BB_MOUNT/restart

srun ./bin/s3d_run start $RESTART_DIR
srun --distribution=cyclic ./bin/s3d_run restart $RESTART_DIR
