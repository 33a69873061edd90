#!/bin/bash
#SBATCH --job-name=fio-smallfiles
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# A training-style data set of 256 small files (32 KiB each) is written once from one node;
# then every node reads random 4 KiB pieces of random files of it for a fixed time.
# Reports the aggregate read IOPS.
set -euo pipefail

export DATASET=$BB_MOUNT/dataset
OUTDIR=$SLURM_SUBMIT_DIR/fio_out.$SLURM_JOB_ID
mkdir -p "$DATASET" "$OUTDIR"
trap 'rm -rf "$OUTDIR"' EXIT

srun -N 1 -n 1 fio --name=prepare --directory="$DATASET" --filename_format='sample.$filenum' \
     --nrfiles=256 --filesize=32k --rw=write --bs=32k --ioengine=psync --fallocate=none
srun ./read_random.sh "$OUTDIR"

python3 sum_iops.py "$OUTDIR"/*.json
