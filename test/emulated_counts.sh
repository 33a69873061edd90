#!/usr/bin/env bash
# Requests per operation, per mode, on a 4-node emulated cluster with the cluster's default
# kernel caching (entries and attributes for 10 s, kept coherent by invalidations between the
# nodes, fs/core/coherence.h): node 1 creates N files (open O_CREAT, a 100-byte write, close), stats
# them, reads them (open, read, close) and removes them, in a workspace of each mode, and the
# daemons' counters say how many FUSE requests node 1 served per operation and how many
# metadata requests it sent to other nodes. Counts are deterministic, so they are asserted as
# upper bounds (the table below): a change that adds requests or round trips fails here.
# Prints the measured table (bench/results/request_counts.md records it). Needs root.
set -euo pipefail
bin=${1:?usage: emulated_counts.sh BUILD_BIN_DIR SOURCE_DIR}
src=${2:?usage: emulated_counts.sh BUILD_BIN_DIR SOURCE_DIR}
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test emulated_counts
n=50  # files per operation

# Upper bounds, per mode and phase: FUSE requests served by node 1 per file, and metadata
# requests node 1 sent to other nodes per file (the measured values when this table was written).
# Before coherent caching (cache_timeout 0 in a cluster) they were, FUSE: create 10, stat 5, read
# 10, unlink 6 in the shared modes; remote in mode 2: 4, 2, 5, 2 (bench/results/request_counts.md).
# Each check allows 3 requests more per 50 files: the workspace's own entry and attributes may
# expire once within a run and be asked again (the timeout runs on the wall clock).
# subcreate's remote requests are its three (lookup, create, the size at close) plus, at most
# every 20 ms, the directory's changes sent and its attributes read again: a bound of 3.5, not
# the measured value, as that share follows the timing.
declare -A max_fuse=([1.subcreate]=6.06 [2.subcreate]=6.06 [3.subcreate]=6.06 [4.subcreate]=6.06 [1.create]=6.02 [1.stat]=1.02 [1.read]=4.0 [1.unlink]=1.98 [2.create]=6.02 [2.stat]=1.02
  [2.read]=5.0 [2.unlink]=2.0 [3.create]=6.02 [3.stat]=1.02 [3.read]=5.0 [3.unlink]=2.0 [4.create]=6.02
  [4.stat]=1.02 [4.read]=5.0 [4.unlink]=2.0)
declare -A max_remote=([1.subcreate]=0.0 [2.subcreate]=3.5 [3.subcreate]=3.5 [4.subcreate]=3.5 [1.create]=0.0 [1.stat]=0.0 [1.read]=0.0 [1.unlink]=0.0 [2.create]=3.0 [2.stat]=0.0
  [2.read]=0.0 [2.unlink]=1.0 [3.create]=2.16 [3.stat]=0.0 [3.read]=0.0 [3.unlink]=0.72 [4.create]=2.16
  [4.stat]=0.0 [4.read]=0.0 [4.unlink]=0.72)

"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" >/dev/null
for m in 1 2 3 4; do "$bbctl" job start --name "m$m" --mode-file "$src/configs/modes/mode$m.yaml" >/dev/null; done

# node 1's FUSE requests (all types) and metadata requests to other nodes, as "fuse remote".
counts() {
  "$bbctl" stats --node 1 --json | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(sum(s["ops"].values()), sum(t["meta_requests"] for i, t in enumerate(s["to"]) if i != 1))'
}

cat > "$tmp/ops.py" <<'EOF'
import os, sys
phase, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if phase == "subcreate":
    os.mkdir(f"{d}/sub")
for i in range(n):
    p = f"{d}/f{i}"
    if phase == "subcreate":  # as mdtest-hard: in a directory that is not a workspace's root
        fd = os.open(f"{d}/sub/f{i}", os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644); os.write(fd, b"x" * 3901); os.close(fd)
    elif phase == "create":
        fd = os.open(p, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o644); os.write(fd, b"x" * 100); os.close(fd)
    elif phase == "stat":
        os.stat(p)
    elif phase == "read":
        fd = os.open(p, os.O_RDONLY); os.read(fd, 4096); os.close(fd)
    elif phase == "unlink":
        os.unlink(p)
EOF

echo "| mode | phase | FUSE requests per file | metadata requests to other nodes per file |"
echo "|---|---|---|---|"
for m in 1 2 3 4; do
  for phase in create stat read unlink subcreate; do
    read -r f0 r0 <<<"$(counts)"
    on 1 python3 "$tmp/ops.py" "$phase" "$mnt/m$m" "$n"
    read -r f1 r1 <<<"$(counts)"
    fuse=$(python3 -c "print(round(($f1 - $f0) / $n, 2))")
    remote=$(python3 -c "print(round(($r1 - $r0) / $n, 2))")
    echo "| $m | $phase | $fuse | $remote |"
    check "mode $m $phase: $fuse FUSE requests per file (at most ${max_fuse[$m.$phase]})" \
      python3 -c "import sys; sys.exit(not $fuse <= ${max_fuse[$m.$phase]} + 3 / $n)"
    check "mode $m $phase: $remote metadata requests to other nodes per file (at most ${max_remote[$m.$phase]})" \
      python3 -c "import sys; sys.exit(not $remote <= ${max_remote[$m.$phase]} + 3 / $n)"
  done
done
