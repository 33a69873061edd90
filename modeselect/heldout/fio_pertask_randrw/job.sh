#!/bin/bash
#SBATCH --job-name=fio-randrw
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:02:00
# Local cache tables under fio: every task prefills a scratch file of its own and runs 4 KiB
# random reads and writes (70 % reads) on it for 2 s; the job reports the tasks' summed IOPS.
set -euo pipefail

export FIO_DIR=$BB_MOUNT/fio_cache
srun bash -c '
  mkdir -p "$FIO_DIR"
  TASK_FILE=$FIO_DIR/task$SLURM_PROCID.tbl fio --eta=never --output-format=json \
    --output="$SLURM_SUBMIT_DIR/fio.$SLURM_JOB_ID.$SLURM_PROCID.json" "$SLURM_SUBMIT_DIR/randrw.fio"
  rm -f "$FIO_DIR/task$SLURM_PROCID.tbl"
'
rmdir "$FIO_DIR" 2>/dev/null || true

python3 - "$SLURM_JOB_ID" "$SLURM_NTASKS" <<'EOF_SUM'
import json, os, sys
job, tasks = sys.argv[1], int(sys.argv[2])
total, errors = 0.0, 0
for t in range(tasks):
    path = f"fio.{job}.{t}.json"
    with open(path) as f:
        doc = json.load(f)
    os.unlink(path)
    for j in doc["jobs"]:
        errors += j["error"]
        if j["jobname"] == "cache":
            total += j["read"]["iops"] + j["write"]["iops"]
print(f"fio-randrw: {tasks} tasks, {errors} errors, {total:.0f} IOPS in all")
if errors or total <= 0:
    sys.exit(1)
print(f"BB_RESULT metric=randrw_iops value={total:.0f} higher_is_better=1")
EOF_SUM
