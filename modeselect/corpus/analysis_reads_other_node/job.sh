#!/bin/bash
#SBATCH --job-name=sim-analysis
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Simulate, then analyse: every rank writes its field and statistics; the analysis then runs
# in the batch shell and reads all of them.
set -euo pipefail

RUN=$BB_MOUNT/run_${SLURM_JOB_ID}
VALUES=262144                       # 2 MiB of doubles per rank

srun ./bin/sim "$RUN" $VALUES
python3 analyze.py "$RUN" "$SLURM_NTASKS"
