#!/bin/bash
#SBATCH --job-name=mdtest-hard
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# mdtest "hard": all tasks create 3901-byte files in ONE directory, then stat and read the
# files of the neighbouring task (-N 1), verify what they read (-X) and remove them.
set -uo pipefail

NP=$SLURM_NTASKS
LOG=$SLURM_SUBMIT_DIR/mdtest_hard.$SLURM_JOB_ID.log
trap 'rm -f $LOG' EXIT

mpirun -np $NP mdtest -n 80 -t -w 3901 -e 3901 -F -P -N 1 -X -d $BB_MOUNT/mdt_hard 2>&1 | tee $LOG
rc=${PIPESTATUS[0]}
# mdtest reports a failed verification but still exits 0.
if grep -qiE "error|verif.*fail" $LOG; then rc=1; fi
exit $rc
