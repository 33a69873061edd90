#!/bin/bash
#SBATCH --job-name=imgfolder
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Image-folder data set prepared in the burst buffer: all ranks write their samples into the
# class directories of train/ and val/, the data set is indexed by walking the tree
# (os.walk on rank 0, os.scandir of a share of the class directories on every rank), and
# an epoch of shuffled samples is read and checked.
set -euo pipefail

# the site Python has numpy and mpi4py; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy, mpi4py' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

DATA=$BB_MOUNT/imgfolder
CLASSES=16
trap 'rm -rf "$DATA"' EXIT

srun --mpi=pmix -n $SLURM_NTASKS $PYTHON dataset.py "$DATA" $CLASSES
