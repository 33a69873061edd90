#!/bin/bash
#SBATCH --job-name=txn-journal
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Transaction journals: every task appends records to its own journal (O_APPEND, group
# commit with fdatasync) in one journal directory, named by node and local task id, and keeps
# a snapshot replaced by rename; a second step with the same placement replays each journal
# and checks it against its snapshot.
set -euo pipefail

JDIR=$BB_MOUNT/journals
srun ./bin/journal log "$JDIR" 4096
srun ./bin/journal replay "$JDIR" 4096
rmdir "$JDIR" 2>/dev/null || true
