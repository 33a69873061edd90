#!/usr/bin/env bash
# The QoS stage's pass-through overhead: two daemons side by side, one with the stage on and
# no limits, one with it off, and the same short runs alternated between their mounts.
#
#   bench/qos/qos_overhead.sh BIN_DIR WORK_DIR PAIRS   -> a Markdown section on stdout
#
# Both mounts exist for the whole run and each pair runs a workload on both at the same time
# (one process each, started in alternating order), so whatever else the machine does (page
# cache, other tenants, CPU frequency) falls on both sides alike. The figure is the median over
# pairs of (off - on) / off, with the quartiles of that ratio as its spread. cache_timeout is 0 on both daemons: every stat is a
# FUSE request that passes the stage (the default 1 s cache would answer most from the kernel
# and hide the stage). When `perf` works, the stage's share of the daemon's CPU samples is
# measured too: the bound on what the stage can cost a CPU-bound workload.
set -euo pipefail
bin=$1 work=$2 pairs=$3
here=$(cd "$(dirname "$0")" && pwd)
declare -A root mnt pid
for side in off on; do
  root[$side]=$work/oh-$side-root
  mnt[$side]=$work/oh-$side-mnt
  mkdir -p "${mnt[$side]}"
  "$bin/bbd" --root "${root[$side]}" --mount "${mnt[$side]}" --qos-stage "$side" --cache-timeout 0 >/dev/null
  pid[$side]=$(cat "${root[$side]}/bbd.lock")
done
stop() {
  for side in off on; do
    kill "${pid[$side]}" 2>/dev/null || true
  done
  sleep 1
  for side in off on; do
    if grep -q " ${mnt[$side]} " /proc/self/mountinfo; then umount -l "${mnt[$side]}"; fi
  done
}
trap stop EXIT

md_rate() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["ops"]/r["seconds"]))'; }
# What each workload runs: fio's file and arguments (data), or bench/lib/md_phase.py's (metadata).
declare -A fio_file=([seqwrite]=sw [randread]=rr)
declare -A fio_args=([seqwrite]="--rw=write --bs=1M --size=256M" [randread]="--rw=randread --bs=4k --size=128M --direct=1")
md() {  # md WORKLOAD MOUNT: one md_phase.py run, JSON on stdout
  if [ "$1" = stat ]; then python3 "$here/../lib/md_phase.py" statloop "$2/st" 2000 f 3 1
  else python3 "$here/../lib/md_phase.py" "$1" "$2/cr" 10000 f; fi
}
# One run of workload $1 on mount $2 alone (for the profile below).
run() {
  if [ -n "${fio_args[$1]:-}" ]; then
    # shellcheck disable=SC2086
    fio --output-format=json --time_based --runtime=3 --name=r --filename="$2/${fio_file[$1]}" ${fio_args[$1]} >/dev/null
  else
    md "$1" "$2" >/dev/null
  fi
}
# Workload $1 on both mounts at the same time, the side $2 started first; prints "side value"
# for each side.
run_pair() {
  local w=$1 first=$2 second=$3 side
  if [ -n "${fio_args[$w]:-}" ]; then
    # shellcheck disable=SC2086
    fio --output-format=json --time_based --runtime=3 \
      --name="$first" --filename="${mnt[$first]}/${fio_file[$w]}" ${fio_args[$w]} \
      --name="$second" --filename="${mnt[$second]}/${fio_file[$w]}" ${fio_args[$w]} |
      python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    d = j["write"] if j["write"]["total_ios"] else j["read"]
    print(j["jobname"], round(d["bw_bytes"] / 2**20, 1) if sys.argv[1] == "seqwrite" else round(d["iops"]))' "$w"
    return
  fi
  for side in "$first" "$second"; do md "$w" "${mnt[$side]}" > "$work/md.$side" & done
  wait
  for side in "$first" "$second"; do echo "$side $(md_rate < "$work/md.$side")"; done
}
# Files the read and stat runs use, laid out before anything is timed.
for side in off on; do
  m=${mnt[$side]}
  fio --output-format=json --name=r --filename="$m/rr" --rw=write --bs=1M --size=128M >/dev/null
  python3 "$here/../lib/md_phase.py" create "$m/st" 2000 f >/dev/null
done

workloads=(seqwrite randread stat create remove)
csv=$work/overhead.csv
echo "pair,workload,side,value" > "$csv"
for p in $(seq "$pairs"); do
  order=(off on); [ $((p % 2)) -eq 0 ] && order=(on off)
  for w in "${workloads[@]}"; do
    run_pair "$w" "${order[@]}" | while read -r side v; do echo "$p,$w,$side,$v" >> "$csv"; done
  done
  echo "overhead pair $p done" >&2
done

# The stage's share of the CPU the daemon spends, from one more run of each request-bound
# workload on the stage-on mount under perf.
perf_rows=""
if perf record -o /dev/null -- true >/dev/null 2>&1; then
  for w in randread stat create; do
    perf record -q -F 2999 -g -p "${pid[on]}" -o "$work/perf.$w" 2>/dev/null &
    perf_pid=$!
    sleep 0.5
    run "$w" "${mnt[on]}"
    [ "$w" = create ] && run remove "${mnt[on]}"
    kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
    share=$(perf report -q -i "$work/perf.$w" --children --sort sym -g none 2>/dev/null | python3 -c '
import re, sys
# Entry points of the stage (not inlined): the per-thread job lookup and the admission.
total = 0.0
for line in sys.stdin:
    m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\[\.\]\s+(.*)", line)
    if m and re.search(r"adapter::JobChannel\b|qos::Stage::Admit\b", m.group(3)):
        total += float(m.group(1))
print(f"{total:.2f}")')
    perf_rows+="$w $share;"
  done
fi

python3 - "$csv" "$pairs" "$perf_rows" <<'PY'
import csv, statistics, sys
path, pairs, perf_rows = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = {"seqwrite": "seq write 1 MiB (MiB/s)", "randread": "random read 4 KiB, O_DIRECT (IOPS)",
         "stat": "stat (ops/s)", "create": "create (ops/s)", "remove": "remove (ops/s)"}
vals = {}
for r in csv.DictReader(open(path)):
    vals.setdefault(r["workload"], {}).setdefault(int(r["pair"]), {})[r["side"]] = float(r["value"])
print("## 1. Pass-through overhead (stage on, no limits, vs off)\n")
print(f"Two daemons side by side (stage off / stage on without limits, both `cache_timeout: 0` so every "
      f"operation reaches the daemon). {pairs} pairs: each runs a workload on both mounts at the same time, one "
      "process on each (fio for 3 s for data; `bench/lib/md_phase.py` stat-ing 2,000 files for 3 s, creating "
      "10,000 files, removing them), started in alternating order. Overhead = (off - on) / off per pair; the "
      "table gives its median over pairs with the quartiles, and its mean with a 95 % confidence interval (the "
      "alternating start order cancels the advantage of starting first in the mean).\n")
print("| workload | stage off, median | stage on, median | overhead, median of pairs | quartiles of the pairs | overhead, mean of pairs ± 95 % |")
print("|---|---|---|---|---|---|")
for w, label in names.items():
    ps = vals.get(w, {})
    ratios = sorted(100 * (v["off"] - v["on"]) / v["off"] for v in ps.values() if v.get("off"))
    if not ratios:
        continue
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    off = statistics.median(v["off"] for v in ps.values())
    on = statistics.median(v["on"] for v in ps.values())
    mean = statistics.fmean(ratios)
    # Student's t for 95 % at n-1 degrees of freedom (n = pairs), from a small table.
    t = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
         12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}
    dof = len(ratios) - 1
    half = (t[max(k for k in t if k <= dof)] * statistics.stdev(ratios) / len(ratios) ** 0.5) if dof > 0 else float("nan")
    print(f"| {label} | {off:.0f} | {on:.0f} | {statistics.median(ratios):+.1f} % | {q[0]:+.1f} % … {q[2]:+.1f} % | {mean:+.1f} ± {half:.1f} % |")
print()
if perf_rows:
    print("The stage's own cost, measured inside the daemon (`perf record -g` on the stage-on daemon during one "
          "more run; the samples under the stage's entry points `JobChannel` and `Stage::Admit`, callees included, "
          "as a share of all the daemon's samples, kernel time of its FUSE threads included):\n")
    print("| workload | stage share of the daemon's CPU |\n|---|---|")
    for row in perf_rows.strip(";").split(";"):
        w, share = row.split()
        print(f"| {names[w]} | {share} % |")
    print()
print("Every pair: `qos_overhead.csv` beside this file.\n")
PY
