#!/bin/bash
# phase.sh write|mixed FILE: one task's part of the shared-file test.
#   write: this task's slice of FILE, 1 MiB sequential writes, fsync at the end
#   mixed: 4 MiB of 4 KiB random requests anywhere in FILE, 30 % reads
set -euo pipefail
phase=$1 file=$2
rank=${SLURM_PROCID:?} tasks=${SLURM_NTASKS:?}
slice_mb=${SLICE_MB:-16}

case $phase in
  write)
    exec fio --eta=never --name=slice$rank --filename="$file" --ioengine=psync --rw=write --bs=1m \
         --offset=$((rank * slice_mb))m --size=${slice_mb}m --fallocate=none --end_fsync=1 ;;
  mixed)
    exec fio --eta=never --name=mixed$rank --filename="$file" --ioengine=psync --rw=randrw --rwmixread=30 \
         --bs=4k --size=$((tasks * slice_mb))m --io_size=4m --allow_file_create=0 --randseed=$((1000 + rank)) ;;
  *)
    echo "phase.sh: unknown phase $phase" >&2; exit 2 ;;
esac
