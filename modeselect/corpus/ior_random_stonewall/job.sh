#!/bin/bash
#SBATCH -J ior-mixed
#SBATCH -N 4 -n 8
#SBATCH -t 00:02:00
# Mixed segmented I/O on one shared file: 4 segments of 8 MiB per task, 64 KiB transfers at
# shuffled offsets, a write phase and a read phase, each cut off after 1 s (stonewall).
# Reports the mean of the two phases' bandwidth.
set -euo pipefail

OUT=${SLURM_SUBMIT_DIR}/ior_mixed.${SLURM_JOB_ID}.json
trap 'rm -f "$OUT"' EXIT
RUNDIR=$BB_MOUNT/ior_mixed
mkdir -p $RUNDIR
srun ior -a POSIX -w -r -z -t 64k -b 8m -s 4 -D 1 -g \
     -O summaryFormat=JSON -O summaryFile=$OUT -o $RUNDIR/mixed.dat

python3 - "$OUT" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bw = {r["operation"]: r["bwMeanMIB"] for r in doc["summary"]}
if not {"write", "read"} <= set(bw) or min(bw.values()) <= 0:
    sys.exit(f"ior-mixed: incomplete results {bw}")
print(f"write {bw['write']:.1f} MiB/s, read {bw['read']:.1f} MiB/s")
print(f"BB_RESULT metric=mixed_bw_mib_s value={(bw['write'] + bw['read']) / 2:.2f} higher_is_better=1")
PY
