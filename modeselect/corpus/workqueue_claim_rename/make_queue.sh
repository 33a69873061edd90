#!/bin/bash
# make_queue.sh QUEUE ITEMS: fills QUEUE/todo with work items (a line of numbers each) and
# writes the expected total to QUEUE/expected.
set -euo pipefail
queue=$1 items=$2
mkdir -p "$queue/todo" "$queue/claimed" "$queue/done"
awk -v q="$queue" -v n="$items" 'BEGIN {
  srand(42); total = 0
  for (i = 0; i < n; i++) {
    f = sprintf("%s/todo/item_%05d", q, i); line = ""
    for (k = 0; k < 24; k++) { v = int(rand() * 10000); line = line " " v; total += v }
    print substr(line, 2) > f; close(f)
  }
  printf "%d %d\n", n, total > (q "/expected")
}'
