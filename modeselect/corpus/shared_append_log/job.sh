#!/bin/bash
#SBATCH --job-name=eventlog
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# All ranks append their progress lines to one shared log (O_APPEND), which rank 0 checks.
set -euo pipefail

LOG=$BB_MOUNT/events.log
STEPS=30
mpiexec -n $SLURM_NTASKS ./bin/sim "$LOG" $STEPS
echo "log: $(wc -l < "$LOG") lines"
