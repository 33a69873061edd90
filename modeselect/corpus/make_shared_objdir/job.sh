#!/bin/bash
#SBATCH --job-name=buildfarm
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Build farm with one shared object directory: one task generates the code base; every task
# compiles its slice of the units with make into the shared obj/ (temporary names, renamed);
# one task archives and links; every task then asks make whether another task's slice is up
# to date (it stats those objects and reads their dependency files); each task cleans its
# own slice.
set -euo pipefail

TREE=$BB_MOUNT/buildfarm
UNITS=128
MK=$SLURM_SUBMIT_DIR/build.mk

srun -N 1 -n 1 bash gen_sources.sh "$TREE" $UNITS
srun -D "$TREE" bash -c 'make -s -f '"$MK"' SLICE=$SLURM_PROCID NSLICE=$SLURM_NTASKS slice'
srun -N 1 -n 1 -D "$TREE" make -s -f "$MK" link
got=$(srun -N 1 -n 1 "$TREE/bin/app")
want=$(cat "$TREE/expected")
echo "buildfarm: app prints $got (expected $want)"
[ "$got" = "$want" ]

srun -D "$TREE" bash -c '
  other=$(( (SLURM_PROCID + 1) % SLURM_NTASKS ))
  if ! make -q -f '"$MK"' SLICE=$other NSLICE=$SLURM_NTASKS slice; then
    echo "task $SLURM_PROCID: slice $other is not up to date" >&2
    exit 1
  fi'
srun -D "$TREE" bash -c 'make -s -f '"$MK"' SLICE=$SLURM_PROCID NSLICE=$SLURM_NTASKS clean-slice'
left=$(find "$TREE/obj" -type f | wc -l)
echo "buildfarm: $left files left in obj/ after the clean"
[ "$left" -eq 0 ]
rm -rf "$TREE"
