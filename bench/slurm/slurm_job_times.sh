#!/usr/bin/env bash
# Burst buffer start-to-mounted and stop-to-clean times per job under real Slurm on the 4-node
# emulated cluster (bbctl emulate up --slurm, the hooks as Prolog/Epilog/TaskProlog).
#   bench/slurm/slurm_job_times.sh BUILD_BIN_DIR [JOBS] [OUT.md]
# Each round submits a job that asks for a mode 3 burst buffer on 4 nodes and stages nothing, then
# the same job without its #BB line (what the hooks cost a job that asks for nothing), one after
# the other. Reported per job, from the hooks' own report in the job's output: the prolog's time
# until every node was mounted and until the workspace was ready; the epilog's time until every
# node was stopped and clean. From outside: submit to the script's first line, and the script's
# last line to the job's state folder gone (for the plain job: to the job leaving the queue).
# Median [range] over the rounds. Needs root.
set -euo pipefail
bin=$(cd "${1:?usage: slurm_job_times.sh BUILD_BIN_DIR [JOBS] [OUT.md]}" && pwd)
jobs=${2:-10}
out=${3:-$(dirname "$0")/../results/slurm_job_times.md}
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)
work=$(mktemp -d /tmp/bb-slurm-times-XXXXXX)
trap '"$bin/bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export SLURM_CONF=/run/bb-emu/slurm/slurm.conf
"$bin/bbctl" emulate up --slurm --nodes 4 --link-rate 1gbit --root "$work/root" --mount "$work/mnt" >/dev/null
cat > "$work/job.sh" <<'JOB'
#!/bin/bash
#SBATCH -N 4 -n 4
#BB mode=3
date +%s.%N
srun true
date +%s.%N
JOB
grep -v '^#BB' "$work/job.sh" > "$work/plain.sh"
# run SCRIPT: submits it, waits until it left the queue and its state folder is gone; prints
# "submit->first-line last-line->gone" and the output file.
run() {
  local t0 id t_gone f
  t0=$(date +%s.%N)
  id=$(cd "$work" && sbatch --parsable -o "$work/out-%j.txt" "$1")
  while squeue -h -j "$id" 2>/dev/null | grep -q . || [ -e "$work/root/bb-jobs/job.$id" ]; do sleep 0.05; done
  t_gone=$(date +%s.%N)
  f=$work/out-$id.txt
  echo "$(echo "$(sed -n 1p "$f") - $t0" | bc) $(echo "$t_gone - $(sed -n 2p "$f")" | bc) $f"
}
: > "$work/rows"
for i in $(seq "$jobs"); do
  read -r bb_in bb_out f < <(run job.sh)
  read -r plain_in plain_out _ < <(run plain.sh)
  mounted=$(grep -o 'mounted after [0-9.]*' "$f" | awk '{print $3}')
  ready=$(grep -o 'staged in after [0-9.]*' "$f" | awk '{print $4}')
  clean=$(grep -o 'on every node after [0-9.]*' "$f" | awk '{print $5}')
  echo "$mounted $ready $clean $bb_in $bb_out $plain_in $plain_out" >> "$work/rows"
  echo "round $i: mounted ${mounted}s ready ${ready}s clean ${clean}s; #BB job: submit->script ${bb_in}s, end->clean ${bb_out}s; plain job: ${plain_in}s, ${plain_out}s"
done
/usr/bin/python3 - "$work/rows" "$out" "$jobs" "$commit" <<'PY'
import datetime, os, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
cols = ["prolog: every node mounted", "prolog: workspace ready (nothing to stage)", "epilog: every node stopped and clean",
        "outside: submit to the script's first line", "outside: the script's last line to the job's state gone",
        "a job without #BB: submit to the script's first line", "a job without #BB: the script's last line to the job gone"]
def med(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
lines = ["# Burst buffer start and stop per job under Slurm (4 emulated nodes)", "",
         f"Recorded {datetime.date.today()} at commit {sys.argv[4]} on a {os.cpu_count()}-core Debian 12 machine by",
         f"`bench/slurm/slurm_job_times.sh build/bin {sys.argv[3]}`: Debian's Slurm 22.05 on the 4-node emulated",
         "cluster (1 Gbit/s links), the burst buffer's hooks as Prolog/Epilog/TaskProlog, one mode 3 burst",
         "buffer per job, nothing staged, each round also the same job without its #BB line. Seconds,",
         "median [range] over the rounds. The outside times include Slurm's own scheduling and step launch.",
         "", "| phase | seconds |", "|---|---|"]
for i, c in enumerate(cols):
    v = [r[i] for r in rows]
    lines.append(f"| {c} | {med(v):.2f} [{min(v):.2f}-{max(v):.2f}] |")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
