#!/bin/bash
#SBATCH --job-name=ptrack
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Particle tracker: one file per particle group and output step in one flat directory that
# every rank writes into; after each step every rank lists the directory, checks groups of a
# rank on another node, and removes its groups of the step before.
set -euo pipefail

TRACKS=$BB_MOUNT/tracks
STEPS=6
GROUPS_PER_RANK=64

mpiexec -n $SLURM_NTASKS ./bin/tracker "$TRACKS" $STEPS $GROUPS_PER_RANK
