#!/usr/bin/env bash
# Record locks across the emulated cluster: what a lock and unlock pair costs from node 1 (400
# pairs of Python's fcntl.lockf per file: F_SETLKW of the whole file, then F_UNLCK; and 400 of
# fcntl.flock: LOCK_EX, then LOCK_UN) on 8 files of a
# mode 3 workspace, whose locks are kept by the node their file id picks, and on one file of a
# mode 1 workspace (kept on node 1); with LOCKTEST set to xfstests' src/locktest (built outside
# this tree), its POSIX lock cases (xfstests generic/131) with the server on node 1 and the client
# on node 2, over the emulated network.
#   bench/metadata/record_locks.sh [RESULT.md]     (root; default: print the table only)
# Environment: LOCKTEST (path of locktest, optional), RATE (1gbit).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-}
rate=${RATE:-1gbit}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /var/tmp/bb-locks-XXXXXX)
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bbctl" emulate up --nodes 4 --link-rate "$rate" --root "$work/root" --mount "$work/mnt" >/dev/null
"$bbctl" job start --name m3 --mode-file configs/modes/mode3.yaml >/dev/null
"$bbctl" job start --name m1 --mode-file configs/modes/mode1.yaml >/dev/null
# A node's network and mount namespaces (tools/bbctl/emulator/emulate.cc); processes left in the
# background by `bbctl exec` do not outlive it.
on() { local n=$1; shift; nsenter --net=/run/netns/bbnode$n --mount=/run/bb-emu/mnt$n -- "$@"; }
files=()
for k in 0 1 2 3 4 5 6 7; do files+=("$work/mnt/m3/lk$k"); done
files+=("$work/mnt/m1/lk")
for f in "${files[@]}"; do on 1 sh -c "echo x > '$f'"; done
rows=$(on 1 python3 - "${files[@]}" <<'PY'
import fcntl, sys, time
def pairs(lock, f):
    ts = []
    for _ in range(400):
        t = time.perf_counter()
        lock(f, fcntl.LOCK_EX)
        lock(f, fcntl.LOCK_UN)
        ts.append(time.perf_counter() - t)
    ts.sort()
    return f"{ts[len(ts) // 2] * 1e6:.0f} | {ts[len(ts) * 9 // 10] * 1e6:.0f}"
for path in sys.argv[1:]:
    f = open(path, "r+")
    name = path.split("/mnt/")[1]
    print(f"| {name} | {pairs(fcntl.lockf, f)} | {pairs(fcntl.flock, f)} |")
PY
)
locktest="not run (LOCKTEST unset)"
if [ -n "${LOCKTEST:-}" ]; then
  on 1 timeout 120 "$LOCKTEST" "$work/mnt/m3/lock_file" > "$work/port" 2> "$work/server" &
  server=$!
  for _ in $(seq 60); do grep -q "server port" "$work/port" && break; sleep 0.5; done
  port=$(awk '/^server port: /{print $3}' "$work/port")
  rc=0
  on 2 timeout 120 "$LOCKTEST" -p "$port" -h 198.18.0.2 "$work/mnt/m3/lock_file" 2> "$work/client" || rc=$?
  wait "$server" || rc=$?
  locktest="client: $(tail -1 "$work/client"); server: $(tail -1 "$work/server"); exit $rc"
fi
table=$(printf '| file | lockf pair median (us) | p90 (us) | flock pair median (us) | p90 (us) |\n|---|---|---|---|---|\n%s\n\nlocktest across nodes 1 and 2: %s\n' "$rows" "$locktest")
echo "$table"
if [ -n "$out" ]; then
  {
    echo "# Record locks on 4 emulated nodes"
    echo
    echo "Recorded $(date -u +%F) with \`bench/metadata/record_locks.sh\` at $(git rev-parse --short HEAD), links at $rate."
    echo
    echo "$table"
  } > "$out"
fi
