#!/bin/bash
#SBATCH --job-name=s3d-ckpt
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# S3D-like checkpoint burst: 3 dumps of every rank's block (4 MiB each), one file per rank
# and dump.
set -euo pipefail

DATA=$BB_MOUNT/s3d/data
NSTEPS=3

# the data directory on every node (one task per node)
srun -N $SLURM_NNODES -n $SLURM_NNODES --ntasks-per-node=1 mkdir -p $DATA
srun ./bin/s3d_ckpt $DATA $NSTEPS
