#!/bin/bash
#SBATCH --job-name=md-restart
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# MD run with a checkpoint piece per rank, the ranks dealt to the nodes round-robin; the
# restart runs one rank per node, each taking over the pieces of two checkpoint ranks that
# mostly sat on other nodes, and checks that the energy is conserved.
set -euo pipefail

CKPT=$BB_MOUNT/md_ckpt
NPART=262144
STEPS=20

srun --distribution=cyclic ./bin/mdrun run "$CKPT" $NPART $STEPS
mpirun --map-by ppr:1:node ./bin/mdrun restart "$CKPT" $NPART $STEPS
