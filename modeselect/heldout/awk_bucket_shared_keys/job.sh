#!/bin/bash
#SBATCH --job-name=log-buckets
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Map/reduce on access logs with files as the shuffle: every task generates its share of the
# access log and buckets it by key with awk into one shared directory (a file per key and
# task); then each task reduces its keys by globbing the key's bucket files of all tasks,
# counting with sort | uniq -c into reduced/; the batch shell checks the grand totals.
set -euo pipefail

export SHUF=$BB_MOUNT/shuffle KEYS=64 LINES=20000
mkdir -p "$SHUF/buckets" "$SHUF/reduced"

# map: every line goes to buckets/key_KK.task_T
srun bash -c '
  awk -v t=$SLURM_PROCID -v n=$LINES -v keys=$KEYS -v d="$SHUF/buckets" "BEGIN {
    srand(t + 1)
    for (i = 0; i < n; i++) {
      k = int(rand() * keys); status = (rand() < 0.9) ? 200 : 404
      f = sprintf(\"%s/key_%02d.task_%d\", d, k, t)
      printf \"/api/v1/item/%d %d\n\", k * 1000 + int(rand() * 50), status >> f
    }
  }"
  echo "task $SLURM_PROCID mapped $LINES lines into $(ls "$SHUF"/buckets/*.task_$SLURM_PROCID | wc -l) buckets"
' | sort -k2n

# reduce: key k belongs to task k mod NTASKS
srun bash -c '
  for ((k = SLURM_PROCID; k < KEYS; k += SLURM_NTASKS)); do
    key=$(printf %02d $k)
    cat "$SHUF"/buckets/key_$key.task_* | sort | uniq -c | sort -k2 > "$SHUF/reduced/key_$key.counts"
  done'

lines=$(cat "$SHUF"/reduced/*.counts | awk "{s += \$1} END {print s}")
files=$(ls "$SHUF/reduced" | wc -l)
echo "log-buckets: $files reduced keys, $lines lines counted (want $KEYS keys, $((LINES * SLURM_NTASKS)) lines)"
[ "$files" -eq "$KEYS" ] && [ "$lines" -eq $((LINES * SLURM_NTASKS)) ]
srun bash -c 'rm -f "$SHUF"/buckets/*.task_$SLURM_PROCID'
rm -rf "$SHUF"
