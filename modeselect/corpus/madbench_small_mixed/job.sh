#!/bin/bash
#SBATCH --job-name=madbench-small
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# MADbench2-like small I/O: small records in one shared file, read back by the neighbouring
# rank, mixed with small status and marker files.
set -euo pipefail

RUN=$BB_MOUNT/mad_small
srun --ntasks=8 ./bin/small_mixed $RUN 40
