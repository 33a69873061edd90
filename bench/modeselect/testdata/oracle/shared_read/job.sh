#!/bin/bash
# Oracle test job: node 0 (the batch shell) writes a file, the task on node 1 reads it back.
# In mode 1 node 1 cannot see node 0's files, so the oracle must disqualify mode 1.
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
set -euo pipefail
head -c 2097152 /dev/urandom > "$BB_MOUNT/data"
sum=$(md5sum < "$BB_MOUNT/data")
srun bash -c 'if [ "$SLURM_NODEID" = 1 ]; then test "$(md5sum < "$BB_MOUNT/data")" = "$0"; fi' "$sum"
