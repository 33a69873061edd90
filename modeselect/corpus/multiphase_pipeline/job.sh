#!/bin/bash
#SBATCH --job-name=pipeline
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Multi-phase pipeline: rank 0 sets up the run directory, every rank writes its part,
# reads it back after a barrier, rank 0 writes the summary; the script prints it.
set -euo pipefail

RUN_DIR=$BB_MOUNT/pipeline.$SLURM_JOB_ID
MIB_PER_RANK=8

mpirun -np 8 --map-by ppr:2:node ./bin/pipeline $RUN_DIR $MIB_PER_RANK
cat $RUN_DIR/summary.txt
