#!/usr/bin/env bash
# Cluster tests on a 4-node emulated cluster (network + mount namespaces, 1 Gbit/s shaped links,
# UCX over TCP), and on N daemons started on this host with bbctl start. Needs root.
# Always tears the cluster down, and checks that nothing is left behind.
set -euo pipefail
bin=${1:?usage: emulated_cluster.sh BUILD_BIN_DIR}
bbctl=$bin/bbctl
tmp=$(mktemp -d /tmp/bb-cluster-XXXXXX)
root=$tmp/root
mnt=$tmp/mnt
fails=0

finish() {
  local rc=$?
  "$bbctl" emulate down >/dev/null 2>&1 || true
  "$bbctl" stop --root "$tmp/local" >/dev/null 2>&1 || true
  rm -rf "$tmp"
  if [ $rc -eq 0 ] && [ $fails -eq 0 ]; then echo "emulated_cluster: all passed"; else echo "emulated_cluster: FAILED"; exit 1; fi
}
trap finish EXIT

source "$(dirname "$0")/lib.sh"

"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" -- --rpc-timeout 2000

check "emulate status --json: four nodes up, with address, pid and mount" sh -c "'$bbctl' emulate status --json | python3 -c \"import json, sys; n = json.load(sys.stdin); sys.exit(not (len(n) == 4 and all(x['state'] == 'up' and x['pid'] > 0 and x['address'] and x['mount'] for x in n)))\""

# Idle, the 4 daemons use under 1 % of one core in all (their threads' run time from /proc).
daemons_cpu_ns() {
  local total=0 p f
  for p in $(pgrep -f -- "--root $root/node"); do  # this cluster's daemons, not every bbd here
    for f in /proc/"$p"/task/*/schedstat; do total=$((total + $(cut -d' ' -f1 "$f" 2>/dev/null || echo 0))); done
  done
  echo "$total"
}
sleep 2
cpu0=$(daemons_cpu_ns)
sleep 10
idle_ms=$((($(daemons_cpu_ns) - cpu0) / 1000000))
echo "idle: the 4 daemons ran $idle_ms ms in 10 s"
check "an idle 4-node cluster uses under 1 % of a core (ran $idle_ms ms in 10 s)" test "$idle_ms" -lt 100

# A file written on node 0 reads back identically on node 3.
head -c $((3 * 1024 * 1024 + 12345)) /dev/urandom > "$tmp/data"
on 0 cp "$tmp/data" "$mnt/data"
check "file written on node 0 reads back on node 3" \
  test "$(on 3 md5sum < /dev/null "$mnt/data" | cut -d' ' -f1)" = "$(md5sum "$tmp/data" | cut -d' ' -f1)"

# Links have Ethernet's MTU unless --mtu says otherwise; a bad --mtu is refused before the running
# cluster is touched.
check "node links have MTU 1500 by default" sh -c "ip -n bbnode0 link show eth0 | grep -q 'mtu 1500 '"
rc=0; out=$("$bbctl" emulate up --nodes 4 --mtu 100 --root "$root" --mount "$mnt" 2>&1) || rc=$?
check "emulate up --mtu 100 is refused, naming --mtu" test "$rc" != 0 -a -n "$(grep -- '--mtu must be' <<< "$out")"
check "the cluster is still up after the refused --mtu" test "$(on 2 md5sum < /dev/null "$mnt/data" | cut -d' ' -f1)" = "$(md5sum "$tmp/data" | cut -d' ' -f1)"

# Every node lists the same merged directory.
on 0 mkdir "$mnt/dir"
for n in 0 1 2 3; do on $n sh -c "for i in \$(seq 25); do echo $n > $mnt/dir/n$n-\$i; done"; done
want=$(on 0 ls "$mnt/dir" | md5sum)
same=1
for n in 1 2 3; do [ "$(on $n ls "$mnt/dir" | md5sum)" = "$want" ] || same=0; done
check "ls shows the same 100 entries on every node" test "$same" = 1 -a "$(on 2 ls "$mnt/dir" | wc -l)" = 100

# Rename and unlink are seen on every node.
on 1 mv "$mnt/dir/n0-1" "$mnt/dir/renamed"
on 2 rm "$mnt/dir/n3-25"
seen=1
for n in 0 1 2 3; do
  on $n test -e "$mnt/dir/renamed" || seen=0
  on $n test ! -e "$mnt/dir/n0-1" || seen=0
  on $n test ! -e "$mnt/dir/n3-25" || seen=0
done
check "rename and unlink are seen on every node" test "$seen" = 1

# ior-hard pattern: 4 nodes write disjoint interleaved 47,008-byte records into one file.
records=64
writer='import os, sys
path, node, nodes, records = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
for k in range(node, records, nodes):
    os.pwrite(fd, bytes([(k * 7 + j) % 251 for j in range(47008)]), k * 47008)
os.close(fd)'
on 0 touch "$mnt/shared"
pids=()
for n in 0 1 2 3; do on $n python3 -c "$writer" "$mnt/shared" $n 4 $records & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
python3 -c "$writer" "$tmp/shared" 0 1 $records
want=$(md5sum < "$tmp/shared")
same=1
for n in 0 1 2 3; do [ "$(on $n md5sum < /dev/null "$mnt/shared" 2>/dev/null | cut -d' ' -f1)  -" = "$want" ] || same=0; done
check "shared file of interleaved 47008-byte records reads back exactly on every node" test "$same" = 1

# A directory of 100,000 entries spread over 4 nodes: readdir fans out, merges and pages.
creator='import os, sys
d, node, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(count):
    os.close(os.open(f"{d}/n{node}.{i:06d}", os.O_CREAT | os.O_WRONLY, 0o644))'
on 0 mkdir "$mnt/big"
pids=()
for n in 0 1 2 3; do on $n python3 -c "$creator" "$mnt/big" $n 25000 & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
listing=$(on 3 python3 -c 'import os, sys; names = os.listdir(sys.argv[1]); print(len(names), len(set(names)))' "$mnt/big")
check "a 100,000-entry directory lists completely, without duplicates, from node 3 ($listing)" test "$listing" = "100000 100000"

# One daemon killed: what needs it fails fast (EIO/ETIMEDOUT), the rest goes on.
for i in $(seq 40); do on 0 sh -c "echo $i > $mnt/top$i"; done
# Files of one chunk, for the removals below: the chunk folders node 1 gained for them. In a mode 2
# workspace (entries on node 0, chunks hashed over all nodes), so that removing them needs node
# 1 for their chunks only; 20,000 bytes: past kInlineChunkMax, so each chunk is a folder, not a
# value in node 1's LevelDB.
printf 'mode: 2\nchunk_size: 512KiB\nmetadata_server_ratio: 0.25\n' > "$tmp/mode2.yaml"
"$bbctl" job start --name rm2 --mode-file "$tmp/mode2.yaml" >/dev/null
chunk_folders() { ls "$root/node1/chunks" | grep -v '\.del$' | sort; }
folders_before=$(chunk_folders)
on 0 mkdir "$mnt/rm2/gone"
on 0 sh -c "for i in \$(seq 40); do head -c 20000 /dev/zero > $mnt/rm2/gone/f\$i; done"
on_node1=$(comm -13 <(echo "$folders_before") <(chunk_folders))
"$bbctl" emulate kill --node 1
start=$(date +%s)
ok=0; bad=0
for i in $(seq 40); do
  if out=$(on 0 cat "$mnt/top$i" 2>&1); then ok=$((ok + 1)); else
    bad=$((bad + 1))
    case "$out" in *"Input/output error"*|*"timed out"*) ;; *) echo "unexpected error: $out"; bad=1000;; esac
  fi
done
took=$(( $(date +%s) - start ))
echo "     with node 1 down: $ok readable, $bad failed, in ${took}s"
check "files on live nodes stay readable while node 1 is down" test "$ok" -gt 0
check "files needing node 1 fail with EIO or ETIMEDOUT" test "$bad" -gt 0 -a "$bad" -lt 1000
check "failures come within the deadline (40 reads in under 30 s)" test "$took" -lt 30
# Removed while node 1 is down: the entries go (where their owner is up), the removals of their
# chunks on node 1 fail and are kept in node 0's LevelDB.
on 0 sh -c "for i in \$(seq 40); do rm -f $mnt/rm2/gone/f\$i 2>/dev/null & done; wait" || true
removals_failed() {
  "$bbctl" stats --node 0 --json | python3 -c 'import json, sys; d = json.load(sys.stdin); d = d[0] if isinstance(d, list) else d; print(d["chunk_removals"]["failed"])'
}
sleep 0.2  # the removals go within 5 ms of their unlink
check "removals of chunks on node 1 failed while it was down, and wait in node 0's journal ($(removals_failed) failed)" \
  test "$(removals_failed)" -gt 0
"$bbctl" emulate restart --node 1
ok=0
for i in $(seq 40); do [ "$(on 3 cat "$mnt/top$i" 2>/dev/null)" = "$i" ] && ok=$((ok + 1)); done
check "after restart node 1 rejoins and all 40 files read back" test "$ok" = 40
# The rest removed now. Node 0 sends what it kept again on its own, 1 s after the send that
# failed (a removal right after node 1's restart may fail once more, and waits as long again).
on 0 rm -rf "$mnt/rm2/gone"
on 0 stat -f "$mnt" >/dev/null
for _ in $(seq 50); do
  left=$(comm -12 <(echo "$on_node1") <(chunk_folders) | wc -l)
  [ "$left" = 0 ] && break
  sleep 0.2
done
[ "$left" = 0 ] || "$bbctl" stats --node 0 --json | python3 -c 'import json, sys; d = json.load(sys.stdin); d = d[0] if isinstance(d, list) else d; print("     node 0 chunk_removals:", d.get("chunk_removals"))' || true
check "chunks of files removed while their node was down are freed once it is back ($(echo "$on_node1" | grep -c .) on node 1, $left left)" \
  test "$(echo "$on_node1" | grep -c .)" -gt 0 -a "$left" = 0

# Every daemon killed, then started again one after another: a restarted daemon serves without
# waiting for the others (names on nodes still down fail until they are back).
for n in 0 1 2 3; do "$bbctl" emulate kill --node $n >/dev/null; done
restarted=0
for n in 3 2 1 0; do "$bbctl" emulate restart --node $n >/dev/null && restarted=$((restarted + 1)); done
check "all 4 daemons, killed together, start again one after another ($restarted started)" test "$restarted" = 4
ok=0
for i in $(seq 40); do [ "$(on 2 cat "$mnt/top$i" 2>/dev/null)" = "$i" ] && ok=$((ok + 1)); done
check "and all 40 files read back on node 2 ($ok)" test "$ok" = 40

# Locks across a daemon's restart. A process on node 2 holds the flock lock of a file whose locks
# node 1 keeps, a process on node 1 that of a file node 0 keeps; node 1's daemon is killed and
# started again. Node 1 takes back node 2's lock (node 3 is still refused it), and node 1's
# processes' lock at node 0 goes with their daemon (node 3 takes it).
keeper() {  # the node that keeps the locks of file $2, as seen from node $1 (fs/core/ops/file_locks.cc)
  on "$1" python3 -c "import os, sys
m = (1 << 64) - 1
x = ((os.stat(sys.argv[1]).st_ino ^ 0x6c6f636b) + 0x9e3779b97f4a7c15) & m
x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & m
x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & m
print((x ^ (x >> 31)) % 4)" "$2"
}
hold() {  # a process on node $1 holds the flock lock of $2, says so in $3 and lets go once $4 exists
  on "$1" python3 -c "import fcntl, os, sys, time
f = open(sys.argv[1]); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], 'w').close()
while not os.path.exists(sys.argv[3]): time.sleep(0.05)" "$2" "$3" "$4" &
}
try_lock() { on "$1" flock -n -E 75 "$2" true && echo taken || { [ $? = 75 ] && echo refused; }; }
on 0 mkdir "$mnt/locks"
by1="" by0=""
for i in $(seq 60); do
  on 0 touch "$mnt/locks/l$i"
  case $(keeper 0 "$mnt/locks/l$i") in
    1) [ -n "$by1" ] || by1=$mnt/locks/l$i ;;
    0) [ -n "$by0" ] || by0=$mnt/locks/l$i ;;
  esac
  [ -n "$by1" ] && [ -n "$by0" ] && break
done
hold 2 "$by1" "$tmp/held2" "$tmp/stop2"; holder2=$!
hold 1 "$by0" "$tmp/held1" "$tmp/stop1"; holder1=$!
for _ in $(seq 200); do [ -e "$tmp/held2" ] && [ -e "$tmp/held1" ] && break; sleep 0.05; done
before="$(try_lock 3 "$by1") $(try_lock 3 "$by0")"
"$bbctl" emulate kill --node 1 >/dev/null
"$bbctl" emulate restart --node 1 >/dev/null
after="$(try_lock 3 "$by1") $(try_lock 3 "$by0")"
touch "$tmp/stop2" "$tmp/stop1"
wait "$holder2" || true
wait "$holder1" || true
released=$(try_lock 3 "$by1")
check "a restarted node takes back the locks it keeps and drops its old processes' (before: $before; after: $after; released: $released)" \
  test "$before / $after / $released" = "refused refused / refused taken / taken"

# Teardown leaves nothing behind.
"$bbctl" emulate down
left=""
ip netns list | grep -q '^bbnode' && left+=" netns"
ls /sys/class/net | grep -qE '^(bbv|bbbr)' && left+=" links"
[ -e /run/bb-emu ] && left+=" run-dir"
grep -q " $mnt " /proc/self/mountinfo && left+=" mount"
for p in $(pgrep -f "bbd --root $root" || true); do
  [ "$(ps -o stat= -p "$p" | cut -c1)" != Z ] && left+=" daemon:$p"
done
check "emulate down leaves no namespace, link, mount or daemon (left:${left:- none})" test -z "$left"

# N daemons on this host with bbctl start/status/stop.
"$bbctl" start --nodes 3 --root "$tmp/local" --mount "$tmp/lmnt" --base-port 7400 -- --rpc-timeout 2000 >/dev/null
echo local > "$tmp/lmnt/node0/x"
check "bbctl start: a file written through node 0 reads back through node 2" test "$(cat "$tmp/lmnt/node2/x")" = local
check "bbctl status: all nodes up" "$bbctl" status --root "$tmp/local"
# Listening on 127.0.0.1 (--listen), the daemons' UCX sockets listen on no other interface.
elsewhere=""
for lock in "$tmp"/local/node*/bbd.lock; do
  elsewhere+=$(ss -ltnpH | grep "pid=$(cat "$lock")," | awk '{print $4}' | grep -v '^127\.0\.0\.1:' || true)
done
check "the daemons listen only on the --listen interface (elsewhere:${elsewhere:- none})" test -z "$elsewhere"
set +e
again=$("$bbctl" start --nodes 3 --root "$tmp/local" --mount "$tmp/lmnt" --base-port 7400 2>&1); again_rc=$?
set -e
check "bbctl start on a running cluster's root refuses, naming it (exit $again_rc)" \
  sh -c "[ $again_rc -ne 0 ] && echo '$again' | grep -q 'already running'"
check "and leaves that cluster running" "$bbctl" status --root "$tmp/local"
check "status --json: three nodes up, the same keys as emulate status but the address" sh -c "'$bbctl' status --root '$tmp/local' --json | python3 -c \"import json, sys; n = json.load(sys.stdin); sys.exit(not (len(n) == 3 and all(x['state'] == 'up' and set(x) == {'node', 'pid', 'state', 'mount'} for x in n)))\""
check "and serving" test "$(cat "$tmp/lmnt/node1/x")" = local
"$bbctl" stop --root "$tmp/local" >/dev/null
check "bbctl stop: no mount left" test -z "$(grep " $tmp/lmnt" /proc/self/mountinfo || true)"
