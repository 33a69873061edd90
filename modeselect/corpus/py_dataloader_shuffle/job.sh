#!/bin/bash
#SBATCH --job-name=dataloader
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Data loader: rank 0 writes a sharded data set, then all ranks read shuffled samples of it
# for 2 epochs (mpi4py + numpy).
set -euo pipefail

# the site Python has numpy and mpi4py; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy, mpi4py' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

DATA_DIR=$BB_MOUNT/train_data
SHARDS=16
EPOCHS=2
srun $PYTHON loader.py $DATA_DIR $SHARDS $EPOCHS
