#!/bin/bash
#SBATCH --job-name=node-monitor
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Solver with per-node event logs: the tasks of a node append their progress lines to the
# node's own log (opened with O_APPEND) and keep a heartbeat file each; afterwards one task
# per node checks its node's log and clears it.
set -euo pipefail

LOGS=$BB_MOUNT/logs
STEPS=300
trap 'rm -rf "$LOGS"' EXIT

srun python3 monitor.py run "$LOGS" $STEPS
srun -N $SLURM_NNODES -n $SLURM_NNODES python3 monitor.py check "$LOGS" $STEPS $SLURM_NTASKS_PER_NODE
