#!/bin/bash
#SBATCH --job-name=hacc-meta
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Latency of small metadata operations around a HACC-IO run (index files, a step header
# rewritten every step and re-read by all ranks).
set -euo pipefail

STEPS=100
mpiexec -n 8 ./bin/hacc_meta $BB_MOUNT/hacc_meta $STEPS
