#!/usr/bin/env bash
# A daemon's restart with locks to take back (fs/core/service/lock_recovery.h), on the emulated cluster:
# a process on node 2 holds LOCKS record locks (separate byte ranges, 1,000 per file) of files
# in a mode 3 workspace, whose locks the nodes their file ids pick keep; node 1's daemon is
# killed and started again (`bbctl emulate kill`, `restart`), ROUNDS times, each after the same
# restart while nothing is locked. Reports the restart's time (median and range), the
# locks node 1 took back (its log), and whether they still hold against node 3 afterwards.
#   bench/metadata/lock_recovery.sh [RESULT.md]     (root; default: print the table only)
# Environment: LOCKS (20000), ROUNDS (3), RATE (1gbit).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
locks=${LOCKS:-20000}
rounds=${ROUNDS:-3}
rate=${RATE:-1gbit}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /var/tmp/bb-lockrec-XXXXXX)
holder=""
cleanup() {
  [ -n "$holder" ] && touch "$work/stop" && wait "$holder" 2>/dev/null || true
  "$bbctl" emulate down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
"$bbctl" emulate up --nodes 4 --link-rate "$rate" --root "$work/root" --mount "$work/mnt" >/dev/null
"$bbctl" job start --name m3 --mode-file configs/modes/mode3.yaml >/dev/null
on() { local n=$1; shift; nsenter --net=/run/netns/bbnode$n --mount=/run/bb-emu/mnt$n -- "$@"; }
files=$(((locks + 999) / 1000))
on 2 sh -c "for k in \$(seq $files); do echo x > '$work/mnt/m3/lk'\$k; done"

restart_ms() {
  "$bbctl" emulate kill --node 1 >/dev/null
  local t0
  t0=$(date +%s%N)
  "$bbctl" emulate restart --node 1 >/dev/null
  echo $((($(date +%s%N) - t0) / 1000000))
}
taken_back() { grep -o 'locks: [0-9]* taken back' "$work/root/node1/bbd.log" | tail -1 | awk '{print $2}'; }

# A process on node 2 sets every lock, says so in $work/held, and holds them until $work/stop.
hold() {
  rm -f "$work/held" "$work/stop"
  on 2 python3 - "$work" "$files" <<'PY' &
import fcntl, os, sys, time
work, files = sys.argv[1], int(sys.argv[2])
fds = [open(f"{work}/mnt/m3/lk{k}", "r+") for k in range(1, files + 1)]
for f in fds:
    for i in range(1000):
        fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 2 * i)
open(f"{work}/held", "w").write(str(files * 1000))
while not os.path.exists(f"{work}/stop"):
    time.sleep(0.05)
PY
  holder=$!
  for _ in $(seq 1200); do [ -e "$work/held" ] && return 0; sleep 0.1; done
  echo "the holder did not set its locks" >&2
  exit 1
}
let_go() {
  touch "$work/stop"
  wait "$holder" || true
  holder=""
}
# How many files' byte 0 node 3 is refused (node 2 holds byte 0 of every file).
refused() {
  on 3 python3 - "$work" "$files" <<'PY'
import fcntl, sys
work, files = sys.argv[1], int(sys.argv[2])
n = 0
for k in range(1, files + 1):
    with open(f"{work}/mnt/m3/lk{k}", "r+") as f:
        try:
            fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        except OSError:
            n += 1
print(n)
PY
}

with=() without=() back=()
refused_after=0
for r in $(seq "$rounds"); do
  without+=("$(restart_ms)")
  hold
  with+=("$(restart_ms)")
  back+=("$(taken_back)")
  [ "$(refused)" = "$files" ] && refused_after=$((refused_after + 1))
  let_go
done

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%d [%d-%d]", a[int((NR+1)/2)], a[1], a[NR]}'; }
table="| restart of node 1 | ms, median [range] of $rounds |
|---|---|
| with $((files * 1000)) locks held by node 2 | $(stats "${with[@]}") |
| with nothing locked | $(stats "${without[@]}") |

Locks node 1 took back per restart (its log): ${back[*]}. Rounds after which node 3 was refused
byte 0 of all $files files: $refused_after of $rounds."
echo "$table"
if [ -n "$out" ]; then
  {
    echo
    echo "## A restart with locks to take back ($(date -u +%Y-%m-%d), $(git rev-parse --short HEAD))"
    echo
    echo "\`LOCKS=$locks ROUNDS=$rounds bench/metadata/lock_recovery.sh\` (4 nodes, $rate)."
    echo
    echo "$table"
  } >>"$out"
fi
