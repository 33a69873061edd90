#!/bin/bash
#SBATCH --job-name=madbench-shared
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# MADbench2-like S/W/C phases with collective MPI-IO: 8 matrices distributed by row blocks
# over all ranks, in shared files (one for the matrices, one for their scaled copies).
set -euo pipefail

NBIN=8
LOCAL_KIB=512
OUTDIR=$BB_MOUNT/madbench
mkdir -p $OUTDIR
srun --ntasks=$SLURM_NTASKS ./bin/madbench_coll $OUTDIR/matrices.dat $NBIN $LOCAL_KIB
