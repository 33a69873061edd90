#!/usr/bin/env bash
# Two builds side by side on creates: each round starts a fresh 4-node emulated cluster (1 Gbit/s
# links) with each build in turn and runs one mode-3 job of 8 tasks (2 per node), each making
# FILES empty files in a directory of its own with open(O_CREAT)+close; prints the aggregate
# creates/s (the sum of the tasks' rates) and the daemons' CPU time per create (utime + stime
# of every bbd, from /proc), then the median and range per build. Root; needs mpirun.
#   bench/create_ab.sh BEFORE_BIN AFTER_BIN [ROUNDS] [FILES]
set -euo pipefail
before=${1:?usage: create_ab.sh BEFORE_BIN AFTER_BIN [ROUNDS] [FILES]}
after=${2:?usage: create_ab.sh BEFORE_BIN AFTER_BIN [ROUNDS] [FILES]}
rounds=${3:-3}
files=${4:-1500}
work=$(mktemp -d /tmp/bb-create-ab-XXXXXX)
trap '"$after/bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cat > "$work/job.sh" <<JOB
#!/bin/bash
#SBATCH -N 4
#SBATCH --ntasks-per-node=2
srun python3 -c '
import os, time
d = os.environ["BB_MOUNT"] + "/r" + os.environ["SLURM_PROCID"]
os.mkdir(d)
t = time.time()
for i in range($files):
    os.close(os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_WRONLY, 0o644))
print("RATE %.1f" % ($files / (time.time() - t)))
'
JOB
chmod +x "$work/job.sh"
ticks() {  # CPU clock ticks of the cluster's daemons
  local s=0 f
  for p in $(pgrep -f "bbd --root $work/c/"); do read -r -a f < "/proc/$p/stat"; s=$((s + f[13] + f[14])); done
  echo "$s"
}
one() {  # one: BIN LABEL
  local bin=$1 label=$2 c0 c1 out rate
  "$bin/bbctl" emulate down >/dev/null 2>&1 || true
  rm -rf "$work/c"
  "$bin/bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$work/c/root" --mount "$work/c/mnt" >/dev/null
  c0=$(ticks)
  out=$(cd "$work" && "$bin/bbctl" job run --name ab --mode 3 -- ./job.sh 2>&1)
  c1=$(ticks)
  rate=$(awk '/^RATE/ {s += $2} END {printf "%.0f", s}' <<< "$out")
  echo "$label $rate $(( (c1 - c0) * 1000000 / $(getconf CLK_TCK) / (8 * files) ))" | tee -a "$work/results"
  "$bin/bbctl" emulate down >/dev/null 2>&1
}
echo "build creates/s cpu_us_per_create"
for ((r = 0; r < rounds; r++)); do one "$before" before; one "$after" after; done
python3 - "$work/results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for label in ("before", "after"):
    rate = [float(r[1]) for r in rows if r[0] == label]
    cpu = [float(r[2]) for r in rows if r[0] == label]
    print(f"{label}: {statistics.median(rate):,.0f} creates/s [{min(rate):,.0f}-{max(rate):,.0f}], "
          f"{statistics.median(cpu):,.0f} us CPU per create [{min(cpu):,.0f}-{max(cpu):,.0f}]")
PY
