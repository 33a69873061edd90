#!/bin/bash
#SBATCH --job-name=log-compress
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Log compression batch: one task per node generates the node's logs in a directory of its own
# and compresses and verifies them with xargs -P fan-out; nothing leaves the node.
set -euo pipefail

srun --ntasks-per-node=1 "$SLURM_SUBMIT_DIR/node_batch.sh" "$BB_MOUNT/compress" 64
