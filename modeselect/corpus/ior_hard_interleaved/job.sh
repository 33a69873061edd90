#!/bin/bash
#SBATCH --job-name=ior-hard
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# IO500-style "hard" IOR: every task writes 47008-byte records interleaved with all other
# tasks in one shared file (segment s, task t at (s*ntasks + t)*47008), then reads them back
# shifted by one node (-C -Q 1) and checks them.
set -euo pipefail

NP=${SLURM_NTASKS:-8}
SEGMENTS=160
WORKDIR=$BB_MOUNT/ior_hard
mkdir -p $WORKDIR

mpirun -np $NP ior -a POSIX -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s $SEGMENTS -w -r -R -o $WORKDIR/IOR_file
ls -l $WORKDIR
