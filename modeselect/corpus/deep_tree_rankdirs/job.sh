#!/bin/bash
#SBATCH --job-name=deep-trees
#SBATCH -N 4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Every task builds, walks and removes a deep directory tree of its own
# (depth 5, fanout 2: 63 directories and 128 small files per task).
set -euo pipefail

ROOT=$BB_MOUNT
mpiexec -n 4 python3 tree.py $ROOT 5 2 4
