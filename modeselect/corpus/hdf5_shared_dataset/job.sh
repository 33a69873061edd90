#!/bin/bash
#SBATCH --job-name=h5-fields
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Parallel HDF5: two 3-D datasets written collectively into one shared file; then an
# analysis step reads slabs that other ranks wrote.
set -euo pipefail

H5DIR=$BB_MOUNT/h5out
H5FILE=$H5DIR/fields_0042.h5
mkdir -p $H5DIR
NZ=32      # planes per rank: 32 x 64 x 128 doubles = 2 MiB per rank and dataset

srun ./bin/h5_fields write $H5FILE $NZ
srun ./bin/h5_fields check $H5FILE $NZ
