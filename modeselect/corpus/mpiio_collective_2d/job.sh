#!/bin/bash
#SBATCH --job-name=field-io
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Collective MPI-IO output of a 2-D decomposed field (subarray file views, collective
# buffering hints); then an analysis run reads, collectively, blocks that other ranks wrote.
set -euo pipefail

GRID=2048
FRAMES=2
OUT=${BB_MOUNT}/fields
mkdir -p "$OUT"

mpirun -np 8 --map-by node ./bin/field_io write "$OUT/field.bin" $GRID $FRAMES
mpirun -np 8 --map-by node ./bin/field_io analyze "$OUT/field.bin" $GRID $FRAMES
