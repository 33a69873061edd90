#!/bin/bash
#SBATCH --job-name=fio-mix
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --time=00:02:00
# Shared read/write: the data file is written once from the first node, then all nodes do
# random 4 KiB I/O on it at read ratios of 10, 50 and 90 % (mix.fio).
set -euo pipefail

RESULTS=$SLURM_SUBMIT_DIR/results.$SLURM_JOB_ID
mkdir -p $RESULTS
trap "rm -rf $RESULTS" EXIT

srun --nodes=1 --ntasks=1 fio --eta=never --name=init --filename=$BB_MOUNT/shared_rw.dat --rw=write --bs=1m \
     --size=32m --ioengine=psync
srun bash -c "fio --eta=never --output-format=json --output=$RESULTS/mix.\$SLURM_PROCID.json mix.fio"

python3 - $RESULTS <<'EOF_PY'
import glob, json, os, sys
per_ratio = {}
files = sorted(glob.glob(os.path.join(sys.argv[1], "mix.*.json")))
for name in files:
    for job in json.load(open(name))["jobs"]:
        if job["error"]:
            sys.exit(f"{name}: {job['jobname']} failed (error {job['error']})")
        per_ratio[job["jobname"]] = per_ratio.get(job["jobname"], 0) + job["read"]["iops"] + job["write"]["iops"]
if len(files) == 0 or len(per_ratio) != 3:
    sys.exit(f"missing results: {per_ratio}")
for ratio, iops in sorted(per_ratio.items()):
    print(f"{ratio}: {iops:.0f} IOPS over {len(files)} nodes")
mean = sum(per_ratio.values()) / 3
print(f"BB_RESULT metric=mixed_iops value={mean:.1f} higher_is_better=1")
EOF_PY
