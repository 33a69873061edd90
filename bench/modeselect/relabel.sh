#!/usr/bin/env bash
# Re-measures the mode selector's labels: the oracle (bench/modeselect/oracle.py) over every job of the
# corpus (modeselect/corpus/) and of the held-out group (modeselect/heldout/), each mode 3 times
# interleaved on a 4-node emulated cluster it builds, into <group>/oracle/labels.{json,md} with
# the probe profiles beside them and the commit the file system was built from. Runs already
# made (labels.runs/) are not made again: delete that folder to measure afresh. Root; a quiet
# machine (the labels are times). Usage: bench/modeselect/relabel.sh [corpus|heldout]... (default: both)
set -euo pipefail
cd "$(dirname "$0")/../.."
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(corpus heldout)
for g in "${groups[@]}"; do
  dir=modeselect/$g
  jobs=()
  for d in "$dir"/*/; do [ -f "$d/job.sh" ] && jobs+=("$d"); done
  mkdir -p "$dir/oracle"
  python3 bench/modeselect/oracle.py "${jobs[@]}" --out "$dir/oracle/labels.json" --repeats 3 --timeout 180 \
    --bbctl build/bin/bbctl
done
