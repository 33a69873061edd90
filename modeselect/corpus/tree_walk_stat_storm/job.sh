#!/bin/bash
#SBATCH --job-name=purge-scan
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Purge policy engine on a shared project tree: all ranks fill 16 project directories with
# small files, every rank lists the whole tree and stats its share of it, the old files are
# purged, the rest removed, and the empty directories go.
set -euo pipefail

srun --ntasks=$SLURM_NTASKS ./bin/treescan "$BB_MOUNT/projects" 16 40
