#!/bin/bash
#SBATCH --job-name=bp-staging
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# ADIOS-style staged output: the simulation writes 3 output steps of two variables into a
# run.bp directory (one data subfile per node, written by that node's aggregator, plus a
# metadata index written by rank 0); the analysis then opens the index and reads the blocks
# it selects straight from the subfiles.
set -euo pipefail

# the site Python has numpy and mpi4py; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy, mpi4py' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

OUT=$BB_MOUNT/run.bp
STEPS=3
BLOCK=65536          # doubles per rank and variable
trap 'rm -rf "$OUT"' EXIT

srun ./bin/bpwrite "$OUT" $STEPS $BLOCK
srun -N 4 -n 4 --ntasks-per-node=1 $PYTHON bpselect.py "$OUT"
