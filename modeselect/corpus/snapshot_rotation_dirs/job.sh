#!/bin/bash
#SBATCH --job-name=snap-rotate
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Rotating output snapshots: each step all ranks drop small record files into incoming/, the
# snapshot directories are rotated by renames (the oldest removed), and every rank lists the
# newest snapshot and checks records of a rank on another node in the last two.
set -euo pipefail

srun ./bin/rotate "$BB_MOUNT/snapshots" 8 48
