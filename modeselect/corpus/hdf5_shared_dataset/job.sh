#!/bin/bash
#SBATCH --job-name=h5-fields
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Parallel HDF5: two 3-D datasets written collectively into one shared file, then slabs
# written by other ranks read back.
set -euo pipefail

H5DIR=$BB_MOUNT/h5out
mkdir -p $H5DIR
NZ=32      # planes per rank: 32 x 64 x 128 doubles = 2 MiB per rank and dataset

srun ./bin/h5_fields $H5DIR/fields_0042.h5 $NZ
