#!/usr/bin/env bash
# Requests per operation, per mode, on a 4-node emulated cluster with the cluster's default
# kernel caching (none): node 1 creates N files (open O_CREAT, a 100-byte write, close), stats
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
declare -A max_fuse=([1.create]=7.0 [1.stat]=2.02 [1.read]=5.0 [1.unlink]=2.98 [2.create]=10.0 [2.stat]=5.0
  [2.read]=10.0 [2.unlink]=6.0 [3.create]=10.0 [3.stat]=5.0 [3.read]=10.0 [3.unlink]=6.0 [4.create]=10.0
  [4.stat]=5.0 [4.read]=10.0 [4.unlink]=6.0)
declare -A max_remote=([1.create]=0.0 [1.stat]=0.0 [1.read]=0.0 [1.unlink]=0.0 [2.create]=4.0 [2.stat]=2.0
  [2.read]=5.0 [2.unlink]=2.0 [3.create]=2.88 [3.stat]=1.44 [3.read]=3.6 [3.unlink]=1.44 [4.create]=2.88
  [4.stat]=1.44 [4.read]=3.6 [4.unlink]=1.44)

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
for i in range(n):
    p = f"{d}/f{i}"
    if phase == "create":
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
  for phase in create stat read unlink; do
    read -r f0 r0 <<<"$(counts)"
    on 1 python3 "$tmp/ops.py" "$phase" "$mnt/m$m" "$n"
    read -r f1 r1 <<<"$(counts)"
    fuse=$(python3 -c "print(round(($f1 - $f0) / $n, 2))")
    remote=$(python3 -c "print(round(($r1 - $r0) / $n, 2))")
    echo "| $m | $phase | $fuse | $remote |"
    check "mode $m $phase: $fuse FUSE requests per file (at most ${max_fuse[$m.$phase]})" \
      python3 -c "import sys; sys.exit(not $fuse <= ${max_fuse[$m.$phase]})"
    check "mode $m $phase: $remote metadata requests to other nodes per file (at most ${max_remote[$m.$phase]})" \
      python3 -c "import sys; sys.exit(not $remote <= ${max_remote[$m.$phase]})"
  done
done
