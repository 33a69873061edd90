#!/bin/bash
#SBATCH --job-name=train-input
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Training input pipeline with a decode cache per node: the node's first task decodes the
# node's shards into cache/node<N>, the node's tasks read shuffled samples from them for
# several epochs (mpi4py + numpy), and the cache is cleared by the task that filled it.
set -euo pipefail

# the site Python has numpy and mpi4py; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy, mpi4py' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

CACHE=$BB_MOUNT/decode_cache
SHARDS_PER_NODE=12
SAMPLES_PER_SHARD=256
EPOCHS=3

srun --ntasks-per-node=2 $PYTHON cache_loader.py "$CACHE" $SHARDS_PER_NODE $SAMPLES_PER_SHARD $EPOCHS
