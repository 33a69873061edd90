#!/bin/bash
#SBATCH --job-name=eos-lookup
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Hydro step with a tabulated equation of state: the EOS table (built with the code, in
# bin/) is staged into the burst buffer once, and every rank loads the whole table from there
# and does its zones' lookups (bilinear in log density and log temperature).
set -euo pipefail

REF=$BB_MOUNT/refdata
ZONES=20000
trap 'rm -rf "$REF"' EXIT

mkdir -p "$REF"
cp "$SLURM_SUBMIT_DIR/bin/eos_table.dat" "$REF/"
ls -l "$REF"

srun --kill-on-bad-exit -n $SLURM_NTASKS ./bin/eos_lookup "$REF/eos_table.dat" $ZONES
