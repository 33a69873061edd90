#!/bin/bash
#SBATCH --job-name=buddy-ckpt
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Partner checkpointing: each rank writes its checkpoint, then loads and checks the
# checkpoint of the next rank.
set -e

cd $SLURM_SUBMIT_DIR
mkdir -p bin
mpicc -O2 -o bin/buddy buddy.c

CKPT=$BB_MOUNT/buddy
mpirun -np 8 ./bin/buddy $CKPT 6
