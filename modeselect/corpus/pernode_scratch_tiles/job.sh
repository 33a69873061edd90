#!/bin/bash
#SBATCH --job-name=tile-filter
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Tile filtering with a scratch directory per node: on every node the first task unpacks
# that node's share of the image tiles into $BB_MOUNT/scratch/node<N>, the tasks of the node
# filter the tiles between them, and the first task checks the filtered tiles and clears the
# node's scratch directory.
set -euo pipefail

SCRATCH=$BB_MOUNT/scratch
TILES_PER_NODE=32
TILE_KIB=128
trap 'rm -rf "$SCRATCH"' EXIT

srun --ntasks-per-node=2 --cpu-bind=cores ./bin/tiles "$SCRATCH" $TILES_PER_NODE $TILE_KIB
