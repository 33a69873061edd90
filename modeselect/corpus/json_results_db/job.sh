#!/bin/bash
#SBATCH --job-name=sweep-db
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Parameter sweep whose results database is a directory of small JSON files: every task
# publishes its cases (write, then rename into results/) and lists the database to follow
# the sweep; the next step audits another task's cases, one task summarizes the whole
# database, and every task purges its own entries.
set -euo pipefail

DB=$BB_MOUNT/sweep_db
CASES=960

srun python3 sweep.py run "$DB" $CASES
srun python3 sweep.py audit "$DB" $CASES
srun -N 1 -n 1 python3 sweep.py summarize "$DB" $CASES
srun python3 sweep.py purge "$DB" $CASES
rmdir "$DB/results" "$DB/incoming" "$DB/status" "$DB"
