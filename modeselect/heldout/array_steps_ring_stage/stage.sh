#!/bin/bash
# stage.sh STAGE_DIR INDEX: one element of a pipeline step (written as a job-array element:
# INDEX is the step, SLURM_PROCID the element). Step 0 makes the element's block; step k
# takes the block that element (PROCID + 1) mod NTASKS made in step k-1, checks it against
# the checksum its writer recorded, transforms it (tr) into its own block of step k and
# records that block's checksum. The blocks of step k-2 are removed by their writers.
set -euo pipefail
dir=$1 idx=$2
me=$SLURM_PROCID n=$SLURM_NTASKS
out=$dir/step$idx/block.$me
mkdir -p "$dir/step$idx"
if [ "$idx" -eq 0 ]; then
  head -c 6291456 < <(yes "element $me of the pipeline, step 0 ....................................." 2>/dev/null) > "$out"
else
  src=$dir/step$((idx - 1))/block.$(((me + 1) % n))
  read -r want _ < "$src.cksum"
  got=$(cksum < "$src" | cut -d' ' -f1)
  if [ "$got" != "$want" ]; then
    echo "element $me step $idx: $src has checksum $got, its writer recorded $want" >&2
    exit 1
  fi
  tr 'a-y' 'b-z' < "$src" > "$out"
fi
cksum < "$out" > "$out.cksum"
if [ "$idx" -ge 2 ]; then
  rm -f "$dir/step$((idx - 2))/block.$me" "$dir/step$((idx - 2))/block.$me.cksum"
fi
echo "element $me step $idx: $(cut -d' ' -f2 "$out.cksum") bytes"
