#!/bin/bash
#SBATCH --job-name=trace-gather
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Seismic trace gather through one shared file written block-cyclically with pwrite; read
# back by rank and at random. Launched with mpiexec and a host file made from the allocation.
set -euo pipefail

HOSTS=hosts.$SLURM_JOB_ID
scontrol show hostnames "$SLURM_JOB_NODELIST" | sed "s/\$/ slots=$SLURM_NTASKS_PER_NODE/" > "$HOSTS"
trap 'rm -f "$HOSTS"' EXIT
echo "hosts: $(tr '\n' ' ' < "$HOSTS")"

mkdir -p "$BB_MOUNT/gather"
mpiexec --hostfile "$HOSTS" -np $SLURM_NTASKS ./bin/stripes "$BB_MOUNT/gather/traces.bin" 24 256
rmdir "$BB_MOUNT/gather"
