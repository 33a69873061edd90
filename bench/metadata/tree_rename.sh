#!/usr/bin/env bash
# Rename of a directory tree on the 4-node emulated cluster: rename(2) of a directory holding
# FILES files of SIZE bytes (in 10 subdirectories) from node 2, against what `mv` had to do
# while such a rename gave EXDEV (copy the tree, then remove the original: `cp -a` and `rm -r`),
# per mode, interleaved over ROUNDS rounds; with the calls node 2 made to other nodes per entry.
#   bench/metadata/tree_rename.sh [RESULT.md]     (root; default: print the table only)
# Environment: FILES (2000), SIZE (16384), ROUNDS (3), RATE (1gbit).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
files=${FILES:-2000}
size=${SIZE:-16384}
rounds=${ROUNDS:-3}
rate=${RATE:-1gbit}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /var/tmp/bb-tree-XXXXXX)
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bbctl" emulate up --nodes 4 --link-rate "$rate" --root "$work/root" --mount "$work/mnt" >/dev/null
for m in 1 2 3 4; do "$bbctl" job start --name "m$m" --mode-file "configs/modes/mode$m.yaml" >/dev/null; done
# A node's network and mount namespaces (tools/bbctl/emulator/emulate.cc).
on() { local n=$1; shift; nsenter --net=/run/netns/bbnode$n --mount=/run/bb-emu/mnt$n -- "$@"; }
calls_sent() { "$bbctl" stats --node 2 --json | python3 -c 'import json, sys; print(sum(p["calls_sent"] for p in json.load(sys.stdin)["peers"]))'; }
make_tree='
import os, sys
root, files, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = os.urandom(size)
for d in range(10): os.makedirs("%s/sub%d" % (root, d))
for i in range(files):
    with open("%s/sub%d/f%d" % (root, i % 10, i), "wb") as f: f.write(data)
'
declare -A secs reqs
for r in $(seq "$rounds"); do
  for m in 1 2 3 4; do
    ws=$work/mnt/m$m; node=2
    for way in rename copy; do
      on $node python3 -c "$make_tree" "$ws/t" "$files" "$size"
      before=$(calls_sent)
      t0=$(date +%s.%N)
      if [ $way = rename ]; then
        on $node python3 -c "import os, sys; os.rename(sys.argv[1], sys.argv[2])" "$ws/t" "$ws/t2"
      else
        on $node sh -c "cp -a '$ws/t' '$ws/t2' && rm -r '$ws/t'"
      fi
      t1=$(date +%s.%N)
      n=$(on $node sh -c "find '$ws/t2' | wc -l")
      [ "$n" = $((files + 11)) ] || { echo "mode $m $way: $n entries at the new name, $((files + 11)) made" >&2; exit 1; }
      secs[$m,$way]+="$(python3 -c "print($t1 - $t0)") "
      reqs[$m,$way]+="$(( ($(calls_sent) - before) * 100 / (files + 11) )) "
      on $node rm -r "$ws/t2"
    done
  done
done
# median [min-max] of a list of numbers
stats() { python3 -c 'import sys; v = sorted(float(x) for x in sys.argv[1:]); print("%.2f [%.2f-%.2f]" % (v[len(v) // 2], v[0], v[-1]))' "$@"; }
table="| mode | rename(2): seconds | copy and remove: seconds | rename(2): calls to other nodes per entry | copy and remove: calls to other nodes per entry |
|---|---|---|---|---|"
for m in 1 2 3 4; do
  rq=$(python3 -c 'import sys; v = sorted(int(x) for x in sys.argv[1:]); print("%.2f" % (v[len(v) // 2] / 100))' ${reqs[$m,rename]})
  cq=$(python3 -c 'import sys; v = sorted(int(x) for x in sys.argv[1:]); print("%.2f" % (v[len(v) // 2] / 100))' ${reqs[$m,copy]})
  table+="
| $m | $(stats ${secs[$m,rename]}) | $(stats ${secs[$m,copy]}) | $rq | $cq |"
done
echo "$table"
if [ -n "$out" ]; then
  {
    echo
    echo "## Rename of a directory tree ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD))"
    echo
    echo "\`bench/metadata/tree_rename.sh\` (FILES=$files, SIZE=$size, ROUNDS=$rounds, RATE=$rate): a directory of $files files of"
    echo "$size bytes in 10 subdirectories, made on node 2 of 4 and renamed there by rename(2), against"
    echo "copying it and removing the original (\`cp -a\`, \`rm -r\`: what \`mv\` did while such a rename gave"
    echo "\`EXDEV\`). Median [range] over the rounds, the variants interleaved; calls node 2 made to other"
    echo "nodes (round trips, from the transport's counters), per entry of the tree (itself included)."
    echo
    echo "$table"
  } >> "$out"
fi
