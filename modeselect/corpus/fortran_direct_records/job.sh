#!/bin/bash
#SBATCH --job-name=da-records
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Legacy Fortran output: one unformatted direct-access file of fixed-length records, record
# (step*nranks + rank + 1) holding rank's state at a step; after the run every rank reads the
# records of the next rank back and checks them.
set -euo pipefail

OUT=$BB_MOUNT/da_output
STEPS=16
WORDS=8190            # 64 KiB records with the 16-byte record header
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT"

mpirun --map-by node -np $SLURM_NTASKS ./bin/da_records "$OUT/state.dat" $STEPS $WORDS
