#!/usr/bin/env bash
# QoS benchmarks (root; a real FUSE mount, the real controller):
#  1. pass-through overhead: the stage on without limits vs off, same fio and metadata runs,
#     alternated, median of REPS;
#  2. stage throughput without throttling, 1-64 threads (bb-stage-bench);
#  3. control-cycle latency with 1, 10, 100, 1000 connected daemons (bb-qos-sim);
#  4. the policies on a real mount: 4 jobs joining 10 s apart under static, priority,
#     proportional sharing and PSFA, per-job rates over time (like the paper's Fig. 7-9).
#   bench/qos.sh [RESULT_DIR]   -> qos.md, qos_rates.csv, qos_rates.png
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh --bench >/dev/null  # fio, and matplotlib for the chart
./tools/install-deps.sh --bench >/dev/null  # fio, and matplotlib for the chart
out=${1:-bench/results}
reps=${REPS:-3}
bin=$PWD/build/bin
[ -x "$bin/bbd" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /tmp/bb-qos-bench-XXXXXX)
port=7690
mnt=$work/mnt
stop_all() {
  pkill -f "bb-replay --dir $work" 2>/dev/null || true
  [ -f "$work/root/bbd.lock" ] && kill "$(cat "$work/root/bbd.lock")" 2>/dev/null || true
  pkill -f "bb-controller --policy $work" 2>/dev/null || true
  sleep 1
  if grep -q " $mnt " /proc/self/mountinfo; then umount -l "$mnt"; fi
  return 0
}
trap 'stop_all; rm -rf "$work"' EXIT
mkdir -p "$mnt" "$out"
res=$work/results.txt
: > "$res"

start_bbd() {  # start_bbd EXTRA-FLAGS...
  rm -rf "$work/root"
  "$bin/bbd" --root "$work/root" --mount "$mnt" "$@" >/dev/null
}
stop_bbd() { kill "$(cat "$work/root/bbd.lock")"; for _ in $(seq 50); do grep -q " $mnt " /proc/self/mountinfo || return 0; sleep 0.1; done; }
fio_bw() { python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; d=j["write"] if j["write"]["total_ios"] else j["read"]; print(round(d["bw_bytes"]/2**20) if sys.argv[1]=="bw" else round(d["iops"]))' "$1"; }
md() { python3 bench/lib/md_phase.py "$1" "$mnt/md" 5000 f | python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["ops"]/r["seconds"]))'; }

# ---- 1. pass-through overhead ----
declare -A runs
for rep in $(seq "$reps"); do
  for mode in off on; do
    start_bbd --qos-stage "$mode"
    sync; echo 3 > /proc/sys/vm/drop_caches
    w=$(fio --output-format=json --name=w --filename="$mnt/seq" --rw=write --bs=1M --size=1G --end_fsync=1 | fio_bw bw)
    echo 3 > /proc/sys/vm/drop_caches
    r=$(fio --output-format=json --name=r --filename="$mnt/seq" --rw=randread --bs=4k --size=1G --time_based --runtime=8 | fio_bw iops)
    c=$(md create); s=$(md stat); d=$(md remove)
    runs[$mode]+="$w $r $c $s $d;"
    echo "overhead rep $rep stage $mode: write $w MiB/s, randread $r IOPS, create $c, stat $s, remove $d ops/s"
    stop_bbd
  done
done
python3 - "${runs[off]}" "${runs[on]}" >> "$res" <<'PY'
import statistics, sys
names = ["seq write 1 MiB (MiB/s)", "random read 4 KiB (IOPS)", "create (ops/s)", "stat (ops/s)", "remove (ops/s)"]
def cols(s):
    rows = [list(map(float, r.split())) for r in s.strip(";").split(";")]
    return [statistics.median(c) for c in zip(*rows)]
off, on = cols(sys.argv[1]), cols(sys.argv[2])
print("## 1. Pass-through overhead (stage on, no limits, vs off)\n")
print("| workload | stage off | stage on | overhead |\n|---|---|---|---|")
for n, a, b in zip(names, off, on):
    print(f"| {n} | {a:.0f} | {b:.0f} | {100 * (a - b) / a:+.1f} % |")
print("\nMedians of the runs below (alternating off/on, same order every repetition); overhead = (off - on) / off.")
print("The spread between repetitions of the same setting is the noise floor of this comparison.\n")
print("| run | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
for label, s in (("off", sys.argv[1]), ("on", sys.argv[2])):
    for i, r in enumerate(s.strip(";").split(";")):
        print(f"| stage {label}, rep {i + 1} | " + " | ".join(r.split()) + " |")
print()
PY

# ---- 2. stage throughput ----
{
  echo "## 2. Stage throughput without throttling (bb-stage-bench, 4 jobs, 2 s per point)"
  echo
  echo "| threads | requests/s |"
  echo "|---|---|"
  "$bin/bb-stage-bench" --seconds 2 | tail -n +2 | awk -F, '{printf "| %s | %.0f |\n", $1, $2}'
  echo
} >> "$res"

# ---- 3. control-cycle latency ----
cat > "$work/sim-policy.yaml" <<YAML
algorithm: psfa
interval_ms: 1000
max_rate: {metadata: 110000, data: 10GiB}
jobs:
  job0: {metadata: 40000, data: 1GiB}
  job1: {metadata: 40000, data: 1GiB}
  job2: {metadata: 40000, data: 1GiB}
  job3: {metadata: 40000, data: 1GiB}
YAML
{
  echo "## 3. Control-cycle latency (bb-qos-sim: simulated daemons in one process, 4 jobs each)"
  echo
  echo "Full cycle: from the controller sending \"collect\" to having sent every daemon its rates — it"
  echo "includes every daemon's report round trip (here all answered by one process sharing the 2 cores)."
  echo "Compute + enforce: from the last report in to the last rates sent. The controller's clock."
  echo
  echo "| daemons | cycles | full cycle, mean | full cycle, max | compute + enforce, mean | compute + enforce, max | policy alone, mean |"
  echo "|---|---|---|---|---|---|---|"
} >> "$res"
for n in 1 10 100 1000; do
  "$bin/bb-controller" --policy "$work/sim-policy.yaml" --listen "127.0.0.1:$port" > "$work/ctl.log" 2>&1 & ctl=$!
  sleep 0.5
  line=$("$bin/bb-qos-sim" --controller "127.0.0.1:$port" --clients "$n" --seconds 8)
  kill $ctl; wait $ctl 2>/dev/null || true
  echo "cycle latency, $n daemons: $line"
  IFS=, read -r clients jobs rates mean max cmean cmax pmean <<< "$line"
  echo "| $clients | $((rates / clients)) | $(printf '%.0f' "$mean") µs | $(printf '%.0f' "$max") µs | $(printf '%.0f' "$cmean") µs | $(printf '%.0f' "$cmax") µs | $(printf '%.0f' "$pmean") µs |" >> "$res"
done
echo >> "$res"

# ---- 4. the policies on a real mount ----
for algo in static priority proportional psfa; do
  cat > "$work/policy.yaml" <<YAML
algorithm: $algo
interval_ms: 1000
max_rate: {metadata: 4000, data: 10GiB}
jobs:
  A: {metadata: 2500, weight: 4}
  B: {metadata: 2500, weight: 3}
  C: {metadata: 2500, weight: 2}
  D: {metadata: 2500, weight: 1}
YAML
  "$bin/bb-controller" --policy "$work/policy.yaml" --listen "127.0.0.1:$port" > "$work/ctl.log" 2>&1 & ctl=$!
  start_bbd --qos-controller "127.0.0.1:$port"
  i=0; jobs_pids=()
  for spec in A:2500 B:1500 C:500 D:150; do
    job=${spec%:*}; load=${spec#*:}
    mkdir -p "$mnt/$job"
    ( sleep $((i * 10)); BB_JOB_ID=$job exec "$bin/bb-replay" --dir "$mnt/$job" --threads 4 --rate "$load" --duration $((50 - i * 10)) >/dev/null 2>&1 ) &
    jobs_pids+=($!)
    i=$((i + 1))
  done
  python3 bench/lib/qos_sample.py "$work/root/bbd.sock" 50 1 metadata "$work/rates.$algo.csv"
  wait "${jobs_pids[@]}"
  stop_bbd
  kill $ctl; wait $ctl 2>/dev/null || true
  echo "policy $algo done"
done
/usr/bin/python3 bench/lib/qos_report.py "$work" "$res" "$out/qos.md" "$out/qos_rates.csv" "$out/qos_rates.png" "$reps"
