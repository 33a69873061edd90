#!/bin/bash
#SBATCH -J ior-shared-read
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH -t 2
# One shared file, a contiguous 8 MiB block per task. The first step writes it; the second
# reads it back twice with the tasks placed cyclically over the nodes, so that most ranks
# read a block written on another node, and verifies the data pattern (-R with the same -G).
set -eu

SHARED=$BB_MOUNT/shared.ior
COMMON="-a POSIX -t 1m -b 8m -G 3141 -g"

srun -n $SLURM_NTASKS ior $COMMON -w -k -o $SHARED
srun --distribution=cyclic ior $COMMON -r -R -i 2 -k -o $SHARED
rm -f $SHARED
