#!/bin/bash
#SBATCH --job-name=csv-rollup
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Sensor roll-up: every task generates its share of sensor CSV files, sorts and aggregates
# them with sort/awk in a sandbox directory of its own under a common run directory, checks
# its totals and removes its sandbox. The per-task script is an inline shell (a heredoc held
# in a variable and run by `srun bash -c`); the tasks' verdicts come back through srun's
# output, which the batch shell counts.
set -euo pipefail

RUN=$BB_MOUNT/rollup.$SLURM_JOB_ID
export FILES_PER_TASK=32 ROWS_PER_FILE=600 RUN
mkdir -p "$RUN"

read -r -d '' TASK_SCRIPT <<'EOS' || true
set -euo pipefail
box=$RUN/task$SLURM_PROCID
mkdir -p "$box/in" "$box/sorted" "$box/out"
want=0
for ((f = 0; f < FILES_PER_TASK; f++)); do
  csv=$box/in/sensor_$(printf %03d $f).csv
  # rows: time,sensor,value ; the expected sum travels in the shell variable
  awk -v seed=$((SLURM_PROCID * 1000 + f)) -v rows=$ROWS_PER_FILE 'BEGIN {
        srand(seed); for (i = 0; i < rows; i++) printf "%d,s%02d,%d\n", i, int(rand() * 16), int(rand() * 1000) }' > "$csv"
  want=$((want + $(awk -F, '{s += $3} END {print s}' "$csv")))
done
for csv in "$box"/in/*.csv; do
  name=$(basename "$csv" .csv)
  sort -t, -k2,2 -k1,1n "$csv" > "$box/sorted/$name.csv"
  awk -F, '{sum[$2] += $3; n[$2]++} END {for (k in sum) printf "%s %d %d\n", k, n[k], sum[k]}' \
    "$box/sorted/$name.csv" | sort > "$box/out/$name.sum"
done
cat "$box"/out/*.sum | awk '{n += $2; s += $3} END {print n, s}' > "$box/total"
read -r rows got < "$box/total"
rm -rf "$box"
if [ "$rows" -ne $((FILES_PER_TASK * ROWS_PER_FILE)) ] || [ "$got" -ne "$want" ]; then
  echo "task $SLURM_PROCID BAD rows=$rows sum=$got want=$want"
  exit 1
fi
echo "task $SLURM_PROCID ok rows=$rows sum=$got"
EOS

srun --ntasks-per-node=2 bash -c "$TASK_SCRIPT" | sort -k2,2n | tee "rollup.$SLURM_JOB_ID.log"
ok=$(grep -c ' ok ' "rollup.$SLURM_JOB_ID.log" || true)
rm -f "rollup.$SLURM_JOB_ID.log"
rmdir "$RUN" 2>/dev/null || true
echo "rollup: $ok of $SLURM_NTASKS tasks ok"
[ "$ok" -eq "$SLURM_NTASKS" ]
