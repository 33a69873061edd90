#!/bin/bash
#SBATCH --job-name=mdtest-easy
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# mdtest "easy": every task creates, stats and removes its own empty files in a working
# directory of its own (-u).
set -euo pipefail

source ./mdtest_env.sh
srun mdtest -n $FILES_PER_TASK $MDTEST_OPTS -d $TESTDIR
