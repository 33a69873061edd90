#!/bin/bash
#SBATCH --job-name=volume-scan
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Reference volume scan: one node lays out a 64 MiB volume with fio; every node then reads
# its quarter sequentially and random 64 KiB pieces of the whole volume. Reports the summed
# read bandwidth of the random phase.
set -euo pipefail

export VOLUME=$BB_MOUNT/volume.raw
srun -N 1 -n 1 fio --eta=never --output=/dev/null "$SLURM_SUBMIT_DIR/layout.fio"
size=$(stat -c %s "$VOLUME")
[ "$size" -eq $((64 * 1024 * 1024)) ] || { echo "volume has $size bytes" >&2; exit 1; }

srun --ntasks-per-node=1 bash -c '
  OFFSET=$((SLURM_PROCID * 16))m fio --eta=never --output-format=terse --terse-version=3 "$SLURM_SUBMIT_DIR/scan.fio" \
    > "$SLURM_SUBMIT_DIR/scan.$SLURM_JOB_ID.$SLURM_PROCID"'

# terse v3: field 3 job name, 5 error, 7 read KiB/s
total=0 errors=0 sections=0
for f in scan."$SLURM_JOB_ID".*; do
  while IFS=';' read -r _ _ job _ err _ bw _; do
    sections=$((sections + 1)); errors=$((errors + err))
    [ "$job" = random ] && total=$((total + bw))
  done < "$f"
  rm -f "$f"
done
rm -f "$VOLUME"
echo "volume-scan: $sections sections, $errors errors, random-read ${total} KiB/s in all"
[ "$errors" -eq 0 ] && [ "$sections" -eq $((2 * SLURM_NNODES)) ] && [ "$total" -gt 0 ]
echo "BB_RESULT metric=randread_kib_s value=$total higher_is_better=1"
