#!/bin/bash
# Oracle test job: every task writes and reads back a file of its own, on its own node; nothing
# is shared, so every mode is valid. Built from src/ (the oracle runs make there first).
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
set -euo pipefail
srun bash -c 'exec src/private_io "$BB_MOUNT/private.$SLURM_PROCID" 2097152'
