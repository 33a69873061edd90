#!/bin/bash
#SBATCH --job-name=fio-ckpt
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Checkpoint simulation with fio: one fio per node, each writing its own files (ckpt.fio).
set -euo pipefail

cd "$SLURM_SUBMIT_DIR"
srun fio --output-format=normal ckpt.fio
