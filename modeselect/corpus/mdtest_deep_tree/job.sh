#!/bin/bash
#SBATCH --job-name=mdtest-tree
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# mdtest on a deep directory tree: depth 5, branching 2 (63 directories), one directory and
# one file per directory and task, created, stat'ed, read and removed recursively.
set -euo pipefail

DEPTH=5
BRANCH=2
ITEMS=1
srun mdtest -z $DEPTH -b $BRANCH -I $ITEMS -P -d $BB_MOUNT/tree
