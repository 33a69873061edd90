#!/bin/bash
#SBATCH --job-name=records
#SBATCH -N4 -n8
#SBATCH --time=00:02:00
# Independent MPI-IO with explicit offsets on one shared file (Fortran), read back by the
# next rank.
set -euo pipefail

RUN_DIR=$BB_MOUNT/records_run
mkdir -p $RUN_DIR
NREC=32
RECLEN_KIB=128

srun -n8 ./bin/records $RUN_DIR $NREC $RECLEN_KIB
