#!/bin/bash
#SBATCH --job-name=mdtest-2phase
#SBATCH -N 4
#SBATCH -n 4
#SBATCH --time=00:02:00
# mdtest in separate runs, as IO500 runs its phases: all files are created first; the second
# run stats the files of the next task (-N 1, one task per node, so another node's files)
# and then removes them.
set -euo pipefail

NP=${SLURM_NTASKS}
DIR=$BB_MOUNT/md2phase
ARGS="-n 100 -F -P -d $DIR"

mpiexec -n $NP --map-by node mdtest -C $ARGS
mpiexec -n $NP --map-by node mdtest -T -r -N 1 $ARGS
