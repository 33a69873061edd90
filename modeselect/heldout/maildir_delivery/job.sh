#!/bin/bash
#SBATCH --job-name=alert-spool
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Alert spool in Maildir folders: every rank delivers messages into every rank's mailbox
# (tmp/ then rename into new/); each rank drains its own mailbox (list new/, read, rename into
# cur/ as seen, list cur/, expunge).
set -euo pipefail
mpirun -np $SLURM_NTASKS ./bin/maildir "$BB_MOUNT/spool" 240
