#!/bin/bash
#SBATCH --job-name=taskfarm
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Task farm over a directory queue: one task fills queue/todo with work items; workers on
# every node repeatedly list todo/, claim an item by renaming it into claimed/ (the rename
# decides who gets it), process it with awk into done/, and drop the claim, until todo/ is
# empty. The batch shell checks that every item was done exactly once.
set -euo pipefail

export QUEUE=$BB_MOUNT/queue
ITEMS=384

srun -N 1 -n 1 bash make_queue.sh "$QUEUE" $ITEMS

srun bash -c '
  cd "$QUEUE"
  n=0
  while :; do
    batch=$(ls todo | shuf -n 4 --random-source=<(yes $SLURM_PROCID) 2>/dev/null || true)
    [ -n "$batch" ] || break
    for item in $batch; do
      mv "todo/$item" "claimed/$item.w$SLURM_PROCID" 2>/dev/null || continue
      awk -v w=$SLURM_PROCID "{s = 0; for (i = 1; i <= NF; i++) s += \$i; print FILENAME, w, NF, s}" \
        "claimed/$item.w$SLURM_PROCID" > "done/$item.out"
      rm "claimed/$item.w$SLURM_PROCID"
      n=$((n + 1))
    done
  done
  echo "worker $SLURM_PROCID: $n items"
'

read -r want_items want_total < "$QUEUE/expected"
read -r got_items got_total got_workers < <(cat "$QUEUE"/done/*.out |
  awk '{n++; s += $4; w[$2] = 1} END {k = 0; for (x in w) k++; print n, s, k}')
left=$(ls "$QUEUE/todo" "$QUEUE/claimed" | grep -c item_ || true)
echo "taskfarm: $got_items items done by $got_workers workers, total $got_total ($left left in the queue)"
if [ "$got_items" -ne "$want_items" ] || [ "$got_total" -ne "$want_total" ] || [ "$left" -ne 0 ]; then
  echo "taskfarm: expected $want_items items with total $want_total" >&2
  exit 1
fi
rm -rf "$QUEUE"
