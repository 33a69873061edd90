#!/bin/bash
#SBATCH --job-name=atm-history
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Atmosphere model run with hourly history output: the 192 x 288 grid is split into latitude
# bands, one per rank; every output hour each rank writes its band of T, U and V into one
# history file (MPI_File_write_at_all). After the run the time-mean of T and the extrema of
# the winds are computed from the history file and checked.
set -euo pipefail

# the site Python has numpy; a user's own python3 on PATH may not
PYTHON=python3
if ! $PYTHON -c 'import numpy' 2>/dev/null; then
  PYTHON=/usr/bin/python3
fi

CASE_DIR=$BB_MOUNT/atm_case.$SLURM_JOB_ID
HOURS=24
trap 'rm -rf "$CASE_DIR"' EXIT
mkdir -p "$CASE_DIR/hist"

mpiexec -n $SLURM_NTASKS ./bin/atm_hist "$CASE_DIR/hist/atm.h0.bin" $HOURS
$PYTHON histmean.py "$CASE_DIR/hist/atm.h0.bin"
