#!/bin/bash
#SBATCH --job-name=object-store
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Content-addressed object store shared by the job's tasks: all tasks put blobs into 256
# fan-out directories (made on demand, objects renamed into place, duplicates skipped), every
# task walks and checks the store, half of the tasks drop their objects, and one task removes
# the store.
set -euo pipefail

STORE=$BB_MOUNT/objstore
N=300

srun python3 objstore.py put "$STORE" $N | sort -k3n
srun python3 objstore.py fsck "$STORE" $N | sort -k3n
srun python3 objstore.py gc "$STORE" $N
srun -N 1 -n 1 python3 objstore.py rmtree "$STORE" $N
