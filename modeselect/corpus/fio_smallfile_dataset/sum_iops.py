"""Sums the read IOPS of fio JSON outputs and prints the job's result line."""
import json
import sys

total = 0.0
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    for job in doc["jobs"]:
        if job["error"] != 0:
            sys.exit(f"{path}: fio job {job['jobname']} failed with error {job['error']}")
        total += job["read"]["iops"]
if not sys.argv[1:] or total <= 0:
    sys.exit("no read results")
print(f"readers: {len(sys.argv) - 1}, aggregate {total:.0f} IOPS")
print(f"BB_RESULT metric=randread_iops value={total:.1f} higher_is_better=1")
