#!/bin/bash
#SBATCH --job-name=ocean-parts
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Ocean model output: every rank writes its subdomain to an HDF5 file of its own; a one-task
# step then merges all parts into the global file and checks it.
set -euo pipefail

OUT=$BB_MOUNT/ocean_out
mkdir -p "$OUT"
srun mkdir -p "$OUT"
srun ./bin/h5parts write "$OUT" 128 1024
srun -N 1 -n 1 ./bin/h5parts merge "$OUT" 128 1024
ls -l "$OUT"
rm -rf "$OUT"
