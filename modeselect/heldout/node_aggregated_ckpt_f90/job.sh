#!/bin/bash
#SBATCH --job-name=agg-ckpt
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=4
#SBATCH --time=00:02:00
# Checkpoint aggregated per node: the first rank of every node gathers its node's state and
# writes one file per node; the restart deals the ranks round-robin over the nodes, so almost
# every rank reads its piece from a file written on another node.
set -euo pipefail

CKPT=$BB_MOUNT/agg_ckpt
NVALUES=196608   # 1.5 MiB per rank

srun ./bin/aggckpt write "$CKPT" $NVALUES $SLURM_NTASKS_PER_NODE
srun --distribution=cyclic ./bin/aggckpt restart "$CKPT" $NVALUES $SLURM_NTASKS_PER_NODE
