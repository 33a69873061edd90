#!/bin/bash
#SBATCH --job-name=file-coupler
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Heat-diffusion solver whose subdomains exchange their boundary strips through files (the
# coupler of the legacy code): every coupling step each rank writes its two edge strips and
# reads the facing strips of its left and right neighbours. The result is compared with the
# same run using in-memory halo exchange.
set -euo pipefail

RUN=$BB_MOUNT/coupler_run
STEPS=20
trap 'rm -rf "$RUN"' EXIT

mpirun -np 8 -N 2 ./bin/coupler "$RUN" $STEPS
