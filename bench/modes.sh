#!/usr/bin/env bash
# The four layout modes on the emulated cluster (4 nodes, 1 Gbit/s links, UCX over TCP): the
# workload matrix of the paper's Table I run in one workspace per mode, one after the other.
#   bench/modes.sh [RESULT_DIR]     (root; default bench/results) -> modes.md, modes.csv, modes.png
# Environment: NODES (4), RATE (1gbit), SIZE (MiB per node, 256), RUNTIME (s of random I/O, 8),
# FILES (per node and metadata phase, 2000).
# fio is always used; IOR and mdtest too when `ior`, `mdtest` and `mpirun` are on PATH (they
# are not Debian packages: build them from github.com/hpc/ior), else the results say so.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh --bench >/dev/null  # fio, and matplotlib for the chart
out=${1:-bench/results}
nodes=${NODES:-4}
rate=${RATE:-1gbit}
size=${SIZE:-256}
runtime=${RUNTIME:-8}
files=${FILES:-2000}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
command -v fio >/dev/null || { echo "fio is missing: tools/install-deps.sh" >&2; exit 1; }
work=$(mktemp -d /tmp/bb-modes-bench-XXXXXX)
mnt=$work/mnt
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
source tools/lib/cluster_fio.sh
slice_bytes=$((size << 20))
md_phase=$PWD/bench/lib/md_phase.py
csv=$work/modes.csv
echo "mode,workload,value,unit" > "$csv"

mpi_tools=0
if command -v ior >/dev/null && command -v mdtest >/dev/null && command -v mpirun >/dev/null; then
  mpi_tools=1
else
  echo "modes: ior/mdtest/mpirun not on PATH: IOR and mdtest runs are skipped (fio and the mdtest-style driver run)" >&2
fi

rec() {  # rec MODE WORKLOAD VALUE UNIT
  echo "$1,$2,$3,$4" >> "$csv"
  printf 'mode %s  %-34s %8s %s\n' "$1" "$2" "$3" "$4"
}
on() { local n=$1; shift; "$bbctl" exec --node "$n" -- "$@"; }

# md_all PHASE DIR OFFSET: the metadata phase on every node at once; prints the aggregate
# operations/s (all operations / the slowest node's time). In DIR, @N is the node, @T node
# (N + OFFSET) mod nodes, whose files (prefix n@T.) are the ones used.
md_all() {
  local phase=$1 pattern=$2 offset=$3 pids=() n
  for n in $(seq 0 $((nodes - 1))); do
    local t=$(( (n + offset) % nodes )) d=${pattern//@N/$n}
    d=${d//@T/$t}
    on "$n" python3 "$md_phase" "$phase" "$d" "$files" "n$t." > "$work/md.$n.json" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  cat "$work"/md.*.json | python3 -c '
import json, sys
r = [json.loads(l) for l in sys.stdin if l.strip()]
print(round(sum(x["ops"] for x in r) / max(x["seconds"] for x in r)))'
  rm -f "$work"/md.*.json
}

run_mode() {
  local m=$1 ws=$mnt/m$1 n
  # Every mode starts from the same state: dirty data of the previous one written back.
  sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1
  # The memory the cache gave back is touched once more, so the mode's writes fill memory this
  # machine has backed (warm_memory in tools/lib/cluster_fio.sh says why).
  warm_memory $((2 * nodes * size))
  "$bbctl" job start --name "m$m" --mode-file "configs/modes/mode$m.yaml" >/dev/null
  for n in $(seq 0 $((nodes - 1))); do on "$n" mkdir -p "$ws/nn" "$ws/rnd" "$ws/mdA" "$ws/mdD"; done
  # IOR-A: N-N sequential write (checkpoint), then restart-style read of another node's file.
  rec "$m" "IOR-A N-N write" "$(on_all_nodes bw 0 --name=nn --filename="$ws/nn/f@N" --rw=write --bs=1M --size="${size}M" --end_fsync=1)" MiB/s
  if [ "$m" != 1 ]; then
    rec "$m" "IOR-A N-N read on another node" "$(on_all_nodes bw 1 --name=nn --filename="$ws/nn/f@T" --rw=read --bs=1M --size="${size}M")" MiB/s
    # IOR-B: one shared file, written in slices, each node reads another node's slice. Shared
    # files are made at full size first: fio lays out (re-creates) a file it finds too short,
    # which would race with the other nodes' fio.
    on 0 truncate -s $((nodes * size))M "$ws/shared"
    on 0 truncate -s $((nodes * 32))M "$ws/small"
    on_all_nodes bw 0 --name=n1 --filename="$ws/shared" --rw=write --bs=1M --offset=@O --size="${size}M" --end_fsync=1 >/dev/null
    rec "$m" "IOR-B N-1 read" "$(on_all_nodes bw 1 --name=n1 --filename="$ws/shared" --rw=read --bs=1M --offset=@S --size="${size}M")" MiB/s
    # IOR-C: small (47,008-byte) segmented writes and reads of one shared file.
    rec "$m" "IOR-C small segmented write" "$(on_all_nodes bw 0 --name=c --filename="$ws/small" --rw=write --bs=47008 --offset=@O --size=32M --end_fsync=1)" MiB/s
    rec "$m" "IOR-C small segmented read" "$(on_all_nodes bw 0 --name=c --filename="$ws/small" --rw=read --bs=47008 --offset=@O --size=32M)" MiB/s
  else
    # Mode 1 has no shared files: a node cannot open another node's file (ENOENT, by design).
    for w in "IOR-A N-N read on another node" "IOR-B N-1 read"; do rec 1 "$w" "" "n/a"; done
    rec 1 "IOR-C small segmented write" "$(on_all_nodes bw 0 --name=c --filename="$ws/nn/small@N" --rw=write --bs=47008 --size=32M --end_fsync=1)" MiB/s
    rec 1 "IOR-C small segmented read" "$(on_all_nodes bw 0 --name=c --filename="$ws/nn/small@N" --rw=read --bs=47008 --size=32M)" MiB/s
  fi
  # mdtest-A: a directory per process. mdtest-B: one shared directory. mdtest-D: create, then
  # stat another node's files.
  rec "$m" "mdtest-A create" "$(md_all create "$ws/mdA/d@N" 0)" ops/s
  rec "$m" "mdtest-A stat" "$(md_all stat "$ws/mdA/d@N" 0)" ops/s
  rec "$m" "mdtest-A remove" "$(md_all remove "$ws/mdA/d@N" 0)" ops/s
  rec "$m" "mdtest-B shared-dir create" "$(md_all create "$ws/mdB" 0)" ops/s
  rec "$m" "mdtest-B shared-dir stat" "$(md_all stat "$ws/mdB" 0)" ops/s
  rec "$m" "mdtest-B shared-dir remove" "$(md_all remove "$ws/mdB" 0)" ops/s
  md_all create "$ws/mdD/d@N" 0 >/dev/null
  if [ "$m" != 1 ]; then
    rec "$m" "mdtest-D stat of another node's files" "$(md_all stat "$ws/mdD/d@T" 1)" ops/s
  else
    rec 1 "mdtest-D stat of another node's files" "" "n/a"
  fi
  md_all remove "$ws/mdD/d@N" 0 >/dev/null
  # FIO random 4 KiB, 10/50/90 % reads, a file per node.
  for mix in 10 50 90; do
    rec "$m" "FIO random 4 KiB ${mix}% reads" "$(on_all_nodes iops_rw 0 --name=r --filename="$ws/rnd/r@N" --rw=randrw --rwmixread="$mix" --bs=4k --size=64M --time_based --runtime="$runtime")" IOPS
  done
  if [ $mpi_tools = 1 ]; then
    # Rank r runs on node r mod N. IOR's -C cannot make a rank read another rank's file here:
    # it shifts by whole hosts, and all ranks share one host; so each rank reads its own file
    # (the fio runs above read other nodes' files).
    local mpi=(mpirun --allow-run-as-root --oversubscribe -np "$nodes" "$bbctl" exec --by-rank --)
    for n in $(seq 0 $((nodes - 1))); do on "$n" mkdir -p "$ws/ior" "$ws/mdt"; done
    if [ "$m" != 1 ]; then
      "${mpi[@]}" ior -a POSIX -F -e -w -r -t 1m -b "${size}m" -o "$ws/ior/f" > "$work/ior.txt" 2>&1 || true
      rec "$m" "ior N-N write (-F -e)" "$(awk '/^write /{print int($2); exit}' "$work/ior.txt")" MiB/s
      rec "$m" "ior N-N read of its own file" "$(awk '/^read /{print int($2); exit}' "$work/ior.txt")" MiB/s
      "${mpi[@]}" mdtest -F -u -n "$files" -d "$ws/mdt" > "$work/mdtest.txt" 2>&1 || true
      rec "$m" "mdtest -F -u create" "$(awk '/File creation/{print int($3); exit}' "$work/mdtest.txt")" ops/s
      rec "$m" "mdtest -F -u stat" "$(awk '/File stat/{print int($3); exit}' "$work/mdtest.txt")" ops/s
    else
      # Node-local: no rank may open another's file, and mdtest's rank 0 makes the tree for all.
      "${mpi[@]}" ior -a POSIX -F -e -w -t 1m -b "${size}m" -o "$ws/ior/f" > "$work/ior.txt" 2>&1 || true
      rec 1 "ior N-N write (-F -e)" "$(awk '/^write /{print int($2); exit}' "$work/ior.txt")" MiB/s
      for w in "ior N-N read of its own file" "mdtest -F -u create" "mdtest -F -u stat"; do rec 1 "$w" "" n/a; done
    fi
  fi
  "$bbctl" stats --json > "$work/stats.m$m.json"
  "$bbctl" job stop --name "m$m" >/dev/null
}

"$bbctl" emulate up --nodes "$nodes" --link-rate "$rate" --root "$work/root" --mount "$mnt" >/dev/null
for m in 1 2 3 4; do run_mode "$m"; done

# Kernel caching of node-private files (mode 1): the same re-read and stat work with the
# default private_cache_timeout (60 s, pages kept across opens) and with it off.
cache_runs() {  # cache_runs LABEL
  local ws=$mnt/c n
  "$bbctl" job start --name c --mode-file configs/modes/mode1.yaml >/dev/null
  for n in $(seq 0 $((nodes - 1))); do on "$n" mkdir -p "$ws/d"; done
  on_all_nodes bw 0 --name=w --filename="$ws/d/f@N" --rw=write --bs=1M --size=128M --end_fsync=1 >/dev/null
  on_all_nodes bw 0 --name=r --filename="$ws/d/f@N" --rw=read --bs=1M --size=128M >/dev/null
  # Eight times over, so that a cached re-read lasts long enough to time.
  rec "cache-$1" "mode 1 re-read 1 MiB" "$(on_all_nodes bw 0 --name=r --filename="$ws/d/f@N" --rw=read --bs=1M --size=128M --loops=8)" MiB/s
  md_all create "$ws/md@N" 0 >/dev/null
  md_all stat "$ws/md@N" 0 >/dev/null
  rec "cache-$1" "mode 1 stat again" "$(md_all stat "$ws/md@N" 0)" ops/s
  "$bbctl" job stop --name c >/dev/null
}
cache_runs on
"$bbctl" emulate down >/dev/null
"$bbctl" emulate up --nodes "$nodes" --link-rate "$rate" --root "$work/root2" --mount "$mnt" -- --private-cache-timeout 0 >/dev/null
cache_runs off

mkdir -p "$out"
cp "$csv" "$out/modes.csv"
/usr/bin/python3 bench/lib/modes_report.py "$out/modes.csv" "$out/modes.md" "$out/modes.png" \
  "$nodes" "$rate" "$size" "$runtime" "$files" "$mpi_tools"
