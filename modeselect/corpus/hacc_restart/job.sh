#!/bin/bash
#SBATCH -J hacc-restart
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# HACC-IO checkpoint/restart: 8 ranks on 4 nodes write one shared checkpoint file; the
# restart runs on 2 nodes with 4 ranks, each reading a quarter of all particles.
set -eu

CKPT=$BB_MOUNT/hacc_restart.dat
PARTICLES=150000

srun ./bin/hacc_posix write "$CKPT" $PARTICLES
srun -N 2 -n 4 ./bin/hacc_posix restart "$CKPT"
