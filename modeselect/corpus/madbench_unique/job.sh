#!/bin/bash
#SBATCH --job-name=madbench-unique
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# MADbench2-like S/W/C phases with IOMODE=UNIQUE: every process streams its matrices to and
# from a file of its own.
set -euo pipefail

NBIN=8
MATRIX_KIB=512
WORK=$BB_MOUNT

mpirun -N 2 ./bin/madbench_unique $WORK $NBIN $MATRIX_KIB
