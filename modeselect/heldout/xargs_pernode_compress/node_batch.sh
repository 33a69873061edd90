#!/bin/bash
# node_batch.sh ROOT FILES: the node's share of a compression batch. Makes ROOT/<node>/raw with
# FILES text files (simulation logs), compresses them with `xargs -P 4 gzip`, checks every
# archive with `gzip -t` and by decompressing it against the original (again fanned out with
# xargs), and removes the node's directory. Runs once per node.
set -euo pipefail
root=$1 files=$2
node=${SLURMD_NODENAME:-node$SLURM_NODEID}
work=$root/$node
mkdir -p "$work/raw" "$work/gz"
cd "$work"
for ((i = 0; i < files; i++)); do
  awk -v n=$node -v i=$i 'BEGIN {for (k = 0; k < 3000; k++) printf "%s step %06d field %d value %.6f\n", n, k, i, sin(k * 0.01 + i)}' \
    > "raw/log_$(printf %04d $i).txt"
done
ls raw | xargs -P 4 -I{} sh -c 'gzip -c "raw/$1" > "gz/$1.gz"' _ {}
ls gz | xargs -P 4 -n 8 sh -c 'cd gz && gzip -t "$@"' _
bad=$(ls raw | xargs -P 4 -I{} sh -c 'gzip -dc "gz/$1.gz" | cmp -s - "raw/$1" || echo "$1"' _ {} | wc -l)
raw_bytes=$(cat raw/* | wc -c) gz_bytes=$(cat gz/* | wc -c)
cd /
rm -rf "$work"
rmdir "$root" 2>/dev/null || true  # the last node out removes the root
echo "$node: $files files, $raw_bytes bytes -> $gz_bytes compressed, $bad bad"
[ "$bad" -eq 0 ]
