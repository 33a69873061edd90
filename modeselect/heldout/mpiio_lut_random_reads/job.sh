#!/bin/bash
#SBATCH --job-name=opacity-lut
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Opacity table: rank 0 writes a 32 MiB table through MPI-IO, then every rank looks up random
# 4 KiB records of it (independent MPI_File_read_at).
set -euo pipefail
mpirun --map-by node -np $SLURM_NTASKS ./bin/lut "$BB_MOUNT/opacity.tbl" 8192 3000
