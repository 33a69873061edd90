#!/bin/bash
#SBATCH --job-name=hacc-ckpt
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# HACC-IO checkpoint: all ranks write their particles (9 variables, 38 bytes per particle)
# into one shared file with MPI-IO, then check it.
set -euo pipefail

NPART=200000
CKPT_DIR=$BB_MOUNT/hacc
mkdir -p "$CKPT_DIR"

mpirun -np $SLURM_NTASKS ./bin/hacc_io "$CKPT_DIR/checkpoint.0010" $NPART
