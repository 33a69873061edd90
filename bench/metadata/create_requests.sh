#!/usr/bin/env bash
# FUSE requests per mdtest-hard create, by type, on one node of a 4-node emulated cluster (mode 3):
# RANKS mdtest ranks on node 1 make FILES 3,901-byte files each in one directory (-t -w 3901 -F -P -N 1).
# What the kernel asks beyond the create's own requests shows here: with two ranks in one directory,
# the parent's attributes are asked again when the other rank's create dropped them meanwhile.
#   bench/metadata/create_requests.sh BUILD_BIN_DIR [RANKS] [FILES] [BBD_ARG...]   (root; mdtest and mpirun on PATH)
set -euo pipefail
bin=${1:?usage: create_requests.sh BUILD_BIN_DIR [RANKS] [FILES] [BBD_ARG...]}
ranks=${2:-2}
files=${3:-1000}
shift $(($# < 3 ? $# : 3))
command -v mdtest >/dev/null || { echo "create_requests: mdtest is not on PATH (build it from github.com/hpc/ior)"; exit 1; }
bbctl=$bin/bbctl
work=$(mktemp -d /var/tmp/bb-creq-XXXXXX)
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$work/root" --mount "$work/mnt" -- "$@" >/dev/null
"$bbctl" job start --name m3 --mode-file "$(dirname "$0")/../../configs/modes/mode3.yaml" >/dev/null
ops() { "$bbctl" stats --node 1 --json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["ops"]))'; }
"$bbctl" exec --node 1 -- mkdir -p "$work/mnt/m3/hard"
before=$(ops)
"$bbctl" exec --node 1 -- mpirun --allow-run-as-root --oversubscribe -np "$ranks" mdtest -n "$files" -t -w 3901 \
  -e 3901 -N 1 -F -P -d "$work/mnt/m3/hard" -C | grep -E "File creation" | head -1
after=$(ops)
python3 -c '
import json, sys
b, a, n = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
d = {k: a.get(k, 0) - b.get(k, 0) for k in a}
print(f"{n} creates by {sys.argv[4]} rank(s): FUSE requests per create", round(sum(d.values()) / n, 3),
      {k: round(v / n, 3) for k, v in sorted(d.items()) if v})' "$before" "$after" $((ranks * files)) "$ranks"
