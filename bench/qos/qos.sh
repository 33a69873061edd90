#!/usr/bin/env bash
# QoS benchmarks (root; a real FUSE mount, the real controller):
#  1. pass-through overhead: the stage on without limits vs off, two daemons side by side,
#     PAIRS (default 8) alternated pairs of fio and metadata runs (bench/qos/qos_overhead.sh);
#  2. stage throughput without throttling, 1-64 threads (bb-stage-bench);
#  3. control-cycle latency with 1, 10, 100, 1000 connected daemons (bb-qos-sim), beside the
#     machine's floor for the same messages (bb-tcp-fanout);
#  4. the policies on a real mount: 4 jobs joining 10 s apart under static, priority,
#     proportional sharing and PSFA, per-job rates over time (like the paper's Fig. 7-9).
#   bench/qos/qos.sh [RESULT_DIR]   -> qos.md, qos_rates.csv, qos_rates.png
set -euo pipefail
cd "$(dirname "$0")/../.."
./tools/install-deps.sh --bench >/dev/null  # fio, matplotlib for the chart, perf
out=${1:-bench/results}
pairs=${PAIRS:-8}
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

key=$work/cluster.key
"$bin/bbctl" key new --force "$key"
start_bbd() {  # start_bbd EXTRA-FLAGS...
  rm -rf "$work/root"
  "$bin/bbd" --root "$work/root" --mount "$mnt" --qos-identity environment "$@" >/dev/null
}
stop_bbd() { kill "$(cat "$work/root/bbd.lock")"; for _ in $(seq 50); do grep -q " $mnt " /proc/self/mountinfo || return 0; sleep 0.1; done; }

# ---- 1. pass-through overhead ----
bench/qos/qos_overhead.sh "$bin" "$work" "$pairs" >> "$res"
cp "$work/overhead.csv" "$out/qos_overhead.csv"

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
  echo "Compute + enforce: from the last report in to the last shares sent. The controller's clock."
  echo "Controller CPU per cycle: the controller process's own CPU time (CLOCK_PROCESS_CPUTIME_ID) from"
  echo "one cycle's end to the next: reading the reports, the policy, framing the one shares message"
  echo "and writing it to every daemon. The simulated daemons' CPU is not in it."
  echo
  echo "Floor: what this machine's TCP costs with no controller at all (\`bb-tcp-fanout\`, 200-byte"
  echo "messages to N loopback peers in another process, mean of 200 rounds): one message to each peer"
  echo "(the enforce phase's sends), and one request and reply with each (a collect phase)."
  echo
  echo "| daemons | cycles | full cycle, mean | full cycle, max | compute + enforce, mean | compute + enforce, max | policy alone, mean | controller CPU per cycle | floor: a message to each | floor: a round trip with each |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >> "$res"
declare -A floor_send floor_rt
while IFS=, read -r peers _ _ send rt; do
  floor_send[$peers]=$send; floor_rt[$peers]=$rt
done < <("$bin/bb-tcp-fanout" --peers 1,10,100,1000 --rounds 200 | tail -n +2)
for n in 1 10 100 1000; do
  "$bin/bb-controller" --policy "$work/sim-policy.yaml" --key-file "$key" --listen "127.0.0.1:$port" > "$work/ctl.log" 2>&1 & ctl=$!
  sleep 0.5
  line=$("$bin/bb-qos-sim" --key-file "$key" --controller "127.0.0.1:$port" --clients "$n" --seconds 8)
  kill $ctl; wait $ctl 2>/dev/null || true
  echo "cycle latency, $n daemons: $line"
  IFS=, read -r clients jobs rates mean max cmean cmax pmean cpu <<< "$line"
  echo "| $clients | $((rates / clients)) | $(printf '%.0f' "$mean") µs | $(printf '%.0f' "$max") µs | $(printf '%.0f' "$cmean") µs | $(printf '%.0f' "$cmax") µs | $(printf '%.0f' "$pmean") µs | $(printf '%.0f' "$cpu") µs | $(printf '%.0f' "${floor_send[$n]}") µs | $(printf '%.0f' "${floor_rt[$n]}") µs |" >> "$res"
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
  "$bin/bb-controller" --policy "$work/policy.yaml" --key-file "$key" --listen "127.0.0.1:$port" > "$work/ctl.log" 2>&1 & ctl=$!
  start_bbd --qos-controller "127.0.0.1:$port" --cluster-key-file "$key"
  i=0; jobs_pids=()
  for spec in A:2500 B:1500 C:500 D:150; do
    job=${spec%:*}; load=${spec#*:}
    mkdir -p "$mnt/$job"
    ( sleep $((i * 10)); BB_JOB_ID=$job exec "$bin/bb-replay" --dir "$mnt/$job" --threads 4 --rate "$load" --duration $((50 - i * 10)) >/dev/null 2>&1 ) &
    jobs_pids+=($!)
    i=$((i + 1))
  done
  python3 bench/qos/qos_sample.py "$work/root/bbd.sock" 50 1 metadata "$work/rates.$algo.csv"
  wait "${jobs_pids[@]}"
  stop_bbd
  kill $ctl; wait $ctl 2>/dev/null || true
  echo "policy $algo done"
done
/usr/bin/python3 bench/qos/qos_report.py "$work" "$res" "$out/qos.md" "$out/qos_rates.csv" "$out/qos_rates.png" "$pairs"
