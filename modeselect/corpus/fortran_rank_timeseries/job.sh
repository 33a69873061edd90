#!/bin/bash
#SBATCH --job-name=probe-series
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Flow solver probe output: every rank appends a binary record and a formatted stats line
# per step to files in its own directory run/rank_NNNN (made by the rank with mkdir -p),
# reads its series back at the end, checks it and deletes it.
set -euo pipefail

RUN_DIR=$BB_MOUNT/probes/run
STEPS=400
NX=2048
mkdir -p "$RUN_DIR"

mpirun -np $SLURM_NTASKS --map-by ppr:2:node ./bin/timeseries "$RUN_DIR" $STEPS $NX
rmdir "$RUN_DIR" "$BB_MOUNT/probes" 2>/dev/null || true
