#!/usr/bin/env bash
# Kernel caches stay coherent across nodes: on a 4-node emulated cluster with the cluster's
# default caching (entries and attributes for 300 s), in a workspace of every mode, what one node
# changes is seen on another as soon as the change returned — rename, unlink, chmod, truncate,
# write-then-close, a write through a descriptor of a file another node renamed, a name removed
# and made again by a third node, a name made after another node looked for it, a directory's
# mode, 300 rounds of random writes and truncates on random nodes
# checked against a model (test/close_to_open_oracle.py), and random namespace operations checked
# against a model (test/namespace_oracle.py): 1,500 on random nodes one at a time, then 1,000 per
# node on every node at once (mode 1: each in its own view), and 1,000 across a node's restart
# (modes 2 and 3); and a restarted node's names changed after its restart. Every check first
# makes the other node's kernel cache the old state (stat, ls, cat), so a missed invalidation
# shows as the old state for 300 s. Needs root. Always tears the cluster down.
set -euo pipefail
bin=${1:?usage: emulated_coherence.sh BUILD_BIN_DIR SOURCE_DIR}
src=${2:?usage: emulated_coherence.sh BUILD_BIN_DIR SOURCE_DIR}
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test emulated_coherence

# stat NODE PYTHON-EXPRESSION: evaluates the expression over node NODE's statistics `s`.
stat_of() { "$bbctl" stats --node "$1" --json | python3 -c "import json, sys; s = json.load(sys.stdin); print($2)"; }
# sum_of PYTHON-EXPRESSION: the expression summed over the 4 nodes.
sum_of() { for n in 0 1 2 3; do stat_of $n "$1"; done | awk '{s += $1} END {print s}'; }
# What node N's `stat` says of a path (format %F %a %s %i), or "none".
st() { on "$1" stat -c '%F %a %s %i' "$2" 2>/dev/null || echo none; }

"$bbctl" emulate up --nodes 4 --link-rate 1gbit --root "$root" --mount "$mnt" -- --rpc-timeout 3000 >/dev/null
check "the daemons count the invalidations they send and receive" \
  test "$("$bbctl" stats --node 0 --json | python3 -c 'import json, sys; print("invalidations" in json.load(sys.stdin))')" = True
for m in 1 2 3 4; do "$bbctl" job start --name "c$m" --mode-file "$src/configs/modes/mode$m.yaml" >/dev/null; done

for m in 1 2 3 4; do
  ws=$mnt/c$m
  if [ $m = 1 ]; then
    # Node-private: no other node sees the files; on the node itself the kernel's own cache
    # follows its own changes.
    on 1 sh -c "echo one > $ws/f && stat $ws/f >/dev/null && mv $ws/f $ws/g"
    check "mode 1: a rename on the node is seen there at once" test "$(st 1 $ws/f)" = none -a "$(st 1 $ws/g)" != none
    check "mode 1: another node does not see it" test "$(st 2 $ws/g)" = none
    # The namespace against a model, every node at once in its own view (test/namespace_oracle.py).
    for n in 0 1 2 3; do on $n mkdir "$ws/ns"; done
    out=$(python3 "$src/test/namespace_oracle.py" "$bbctl" "$ws/ns" 1000 101 --private 2>&1 | tail -3 || true)
    check "mode 1: the namespace against a model, every node at once ($out)" test -n "$(echo "$out" | grep ' 0 wrong$')"
    for n in 0 1 2 3; do on $n rm -rf "$ws/ns"; done
    continue
  fi
  a=1 b=2 c=3
  on $a sh -c "echo one > $ws/f"
  check "mode $m: a file written on node $a reads back on node $b" test "$(on $b cat $ws/f)" = one
  on $b ls "$ws" >/dev/null
  on $a mv "$ws/f" "$ws/g"
  check "mode $m: rename on node $a: node $b sees the old name gone" test "$(st $b $ws/f)" = none
  check "mode $m: rename on node $a: node $b sees the new name" test "$(on $b cat $ws/g)" = one
  check "mode $m: rename on node $a: node $b lists the new name only" test "$(on $b ls $ws | tr '\n' ' ')" = "g "

  on $a rm "$ws/g"
  check "mode $m: unlink on node $a: node $b's stat says it is gone" test "$(st $b $ws/g)" = none
  check "mode $m: unlink on node $a: node $b cannot open it" sh -c "! '$bbctl' exec --node $b -- cat $ws/g 2>/dev/null"

  on $a sh -c "printf 0123456789 > $ws/h && chmod 644 $ws/h"
  check "mode $m: node $b caches h as 644, 10 bytes" test "$(st $b $ws/h | cut -d' ' -f3-4)" = "644 10"
  on $a chmod 600 "$ws/h"
  check "mode $m: chmod on node $a is seen on node $b" test "$(st $b $ws/h | cut -d' ' -f3)" = 600
  on $a truncate -s 3 "$ws/h"
  check "mode $m: truncate on node $a: node $b sees the size" test "$(st $b $ws/h | cut -d' ' -f4)" = 3
  check "mode $m: truncate on node $a: node $b reads the cut file" test "$(on $b cat $ws/h)" = 012
  on $a python3 -c "import sys; f = open(sys.argv[1], 'ab'); f.write(b'abcdef'); f.close()" "$ws/h"
  check "mode $m: write-then-close on node $a: node $b sees the size" test "$(st $b $ws/h | cut -d' ' -f4)" = 9
  check "mode $m: write-then-close on node $a: node $b reads the data" test "$(on $b cat $ws/h)" = 012abcdef

  # An open file's cached pages follow another node's in-place overwrite once it closed: node b
  # reads (its kernel caches the page), node a overwrites the same bytes and closes, node b reads
  # again through the same descriptor.
  on $a sh -c "printf AAAA > $ws/p"
  rm -f "$tmp/ready" "$tmp/go"
  on $b python3 -c "
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
first = os.pread(fd, 4, 0)
open(sys.argv[2], 'w').close()
for _ in range(1000):
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.01)
print(first.decode(), os.pread(fd, 4, 0).decode())" "$ws/p" "$tmp/ready" "$tmp/go" > "$tmp/seen" &
reader=$!
for _ in $(seq 500); do [ -e "$tmp/ready" ] && break; sleep 0.02; done
on $a sh -c "printf BBBB | dd of=$ws/p conv=notrunc status=none"
touch "$tmp/go"
wait "$reader" || true
check "mode $m: node $b's open file reads node $a's in-place overwrite after its close ($(cat "$tmp/seen"))" \
  test "$(cat "$tmp/seen")" = "AAAA BBBB"

  # A file renamed on node a while node b holds it open for writing: b's write and close reach
  # the file under its new name (a's rename told b where it went), and node c reads them there.
  on $a sh -c "printf 0123 > $ws/w"
  rm -f "$tmp/ready" "$tmp/go"
  on $b python3 -c "
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY)
open(sys.argv[2], 'w').close()
for _ in range(1000):
    if os.path.exists(sys.argv[3]): break
    time.sleep(0.01)
try:
    os.pwrite(fd, b'WXYZ', 4)
    os.close(fd)
    print('written')
except OSError as e:
    print(e.strerror)" "$ws/w" "$tmp/ready" "$tmp/go" > "$tmp/seen" &
  writer=$!
  for _ in $(seq 500); do [ -e "$tmp/ready" ] && break; sleep 0.02; done
  on $a mv "$ws/w" "$ws/w2"
  touch "$tmp/go"
  wait "$writer" || true
  check "mode $m: node $b writes a file node $a renamed while open there ($(cat "$tmp/seen")), node $c reads it" \
    test "$(cat "$tmp/seen")" = written -a "$(on $c cat $ws/w2)" = 0123WXYZ

  # Against a model: 300 rounds of open, read whole, write and truncate at random, close, each
  # on a node picked at random, and a stat by another node after each.
  out=$(python3 "$src/test/close_to_open_oracle.py" "$bbctl" "$ws/oracle" 300 $m 2>&1 | tail -3 || true)
  check "mode $m: close-to-open against a model ($out)" test -n "$(echo "$out" | grep ' 0 wrong$')"
  # The namespace against a model: 1,500 operations of every kind, each on a node picked at
  # random, with streams of small files among them (test/namespace_oracle.py).
  on $a mkdir "$ws/ns"
  out=$(python3 "$src/test/namespace_oracle.py" "$bbctl" "$ws/ns" 1500 $((m + 100)) 2>&1 | tail -3 || true)
  check "mode $m: the namespace against a model ($out)" test -n "$(echo "$out" | grep ' 0 wrong$')"
  on $a rm -rf "$ws/ns"
  # ...and with every node at once, each in a directory of its own that the others read meanwhile.
  on $a mkdir "$ws/ns"
  out=$(python3 "$src/test/namespace_oracle.py" "$bbctl" "$ws/ns" 1000 $((m + 200)) --parallel 2>&1 | tail -3 || true)
  check "mode $m: the namespace against a model, every node at once ($out)" test -n "$(echo "$out" | grep ' 0 wrong$')"
  on $a rm -rf "$ws/ns"

  on $a sh -c "echo old > $ws/r"
  old=$(st $b "$ws/r")
  on $a rm "$ws/r"
  on $c sh -c "echo newer > $ws/r"
  new=$(st $b "$ws/r")
  check "mode $m: a name removed on node $a and made again on node $c is the new file on node $b ($old / $new)" \
    test "$(echo "$new" | cut -d' ' -f5)" != "$(echo "$old" | cut -d' ' -f5)" -a "$(on $b cat $ws/r)" = newer

  # A stream of small files on node a (one process making files one after another): from its
  # second file on, each name is reserved by its lookup and the file made on node a, its entry
  # reaching the name's owner with its first write or within 20 ms. Node b, told as each create
  # returns, must find it at once — through the owner asking node a for it — and must not be able
  # to make it again (O_EXCL).
  rm -f "$tmp"/made.* && on $a mkdir "$ws/stream"
  on $b python3 -c "
import os, sys, time
d, tmp = sys.argv[1], sys.argv[2]
seen = excl = 0
wrong = []
for i in range(30):
    for _ in range(2000):
        if os.path.exists(f'{tmp}/made.{i}'): break
        time.sleep(0.001)
    try:
        size = os.stat(f'{d}/s{i}').st_size
        seen += size == (100 if i % 2 else 0)
        if size != (100 if i % 2 else 0): wrong.append(f's{i}:{size}B')
    except OSError as e:
        wrong.append(f's{i}:{e.strerror}')
    if i % 3 == 0:
        try:
            os.close(os.open(f'{d}/s{i}', os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        except FileExistsError:
            excl += 1
print(seen, excl)
print(' '.join(wrong), file=sys.stderr)" "$ws/stream" "$tmp" > "$tmp/stream_seen" 2> "$tmp/stream_wrong" &
  watcher=$!
  handed0=$(stat_of $a 's["small_files"]["handed_over"]')
  on $a python3 -c "
import os, sys
d, tmp = sys.argv[1], sys.argv[2]
for i in range(30):
    fd = os.open(f'{d}/s{i}', os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    if i % 2: os.write(fd, b'x' * 100)
    os.close(fd)
    open(f'{tmp}/made.{i}', 'w').close()" "$ws/stream" "$tmp"
  wait "$watcher" || true
  made=$(stat_of $a 's["small_files"]["made_here"]')
  handed=$(($(stat_of $a 's["small_files"]["handed_over"]') - handed0))
  check "mode $m: a stream of 30 small files on node $a: node $b saw each as its create returned, none could be made again ($(cat "$tmp/stream_seen") of 30 10; $made made on node $a, $handed asked back) $(cat "$tmp/stream_wrong")" \
    test "$(cat "$tmp/stream_seen")" = "30 10" -a "$made" -gt 0
  check "mode $m: the stream's directory lists 30 files on node $c" test "$(on $c ls $ws/stream | wc -l)" = 30
  on $a rm -r "$ws/stream"

  # A stream's directory is leased to its node (fs/core/creates/dir_leases.h) while another node races it
  # for the same names with O_EXCL creates: each name is made exactly once, by one of the two, and
  # every node lists all of them.
  on $a mkdir "$ws/race"
  race='import os, sys, time
d, out, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
made = []
for i in range(0, 300, step):
    try:
        fd = os.open(f"{d}/r{i}", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644); os.close(fd); made.append(i)
    except FileExistsError:
        pass
    if step > 1: time.sleep(0.002)
open(out, "w").write(" ".join(map(str, made)))'
  lost0=$(stat_of $a 's["small_files"]["lost"]')
  leases() { sum_of 's["small_files"]["leases_taken"] * 1000000 + s["small_files"]["leases_asked_back"]'; }
  leases0=$(leases)
  on $b python3 -c "$race" "$ws/race" "$tmp/race_b" 7 &
  racer=$!
  on $a python3 -c "$race" "$ws/race" "$tmp/race_a" 1
  wait "$racer" || true
  leases1=$(leases)
  taken=$(((leases1 - leases0) / 1000000)) recalled=$(((leases1 - leases0) % 1000000))
  twice=$(python3 -c "import sys; a = sys.argv[1].split(); b = sys.argv[2].split(); print(len(a) + len(b) - 300, len(set(a) & set(b)))" "$(cat "$tmp/race_a")" "$(cat "$tmp/race_b")")
  check "mode $m: a stream and another node racing for 300 names: each made once ($twice: extra and made by both; $taken leases taken, $recalled asked back)" \
    test "$twice" = "0 0" -a "$taken" -gt 0 -a "$recalled" -gt 0
  check "mode $m: every node lists the 300 names the race made" \
    test "$(for n in 0 1 2 3; do on $n ls "$ws/race" | wc -l; done | sort -u | tr '\n' ' ')" = "300 "
  check "mode $m: no entry made under a lease was lost" test "$(stat_of $a 's["small_files"]["lost"]')" = "$lost0"
  on $a rm -r "$ws/race"

  check "mode $m: node $b looks for a name that is not there" test "$(st $b $ws/n)" = none
  on $a sh -c "echo here > $ws/n"
  check "mode $m: made on node $a, node $b sees it at once (no negative entry hides it)" test "$(on $b cat $ws/n)" = here

  on $a mkdir -m 755 "$ws/d"
  check "mode $m: node $b caches directory d as 755" test "$(st $b $ws/d | cut -d' ' -f2)" = 755
  on $a chmod 700 "$ws/d"
  check "mode $m: chmod of a directory on node $a is seen on node $b" test "$(st $b $ws/d | cut -d' ' -f2)" = 700
  on $a rmdir "$ws/d"
  check "mode $m: rmdir on node $a is seen on node $b" test "$(st $b $ws/d)" = none

  # Statahead: node b's stats of the first entries read the directory ahead (its kernel has not
  # seen the rest); what other nodes change afterwards must still be what node b sees.
  on $a sh -c "mkdir $ws/s && for i in \$(seq 10 49); do printf 0123 > $ws/s/f\$i; done"
  hits=$(stat_of $b 's["statahead"]["hits"]')
  on $b sh -c "for i in \$(seq 10 21); do stat $ws/s/f\$i >/dev/null; done"
  check "mode $m: node $b's stats of 12 entries read the directory ahead" \
    test "$(stat_of $b 's["statahead"]["hits"]')" -gt "$hits"
  on $a chmod 600 "$ws/s/f30"
  on $a rm "$ws/s/f31"
  on $a mv "$ws/s/f32" "$ws/s/moved"
  on $a python3 -c "import sys; f = open(sys.argv[1], 'ab'); f.write(b'456'); f.close()" "$ws/s/f33"
  on $c truncate -s 1 "$ws/s/f34"
  check "mode $m: read ahead, then chmod on node $a: node $b sees it" test "$(st $b $ws/s/f30 | cut -d' ' -f3)" = 600
  check "mode $m: read ahead, then unlink on node $a: node $b sees it gone" test "$(st $b $ws/s/f31)" = none
  check "mode $m: read ahead, then rename on node $a: node $b sees the old name gone" test "$(st $b $ws/s/f32)" = none
  check "mode $m: read ahead, then write-then-close on node $a: node $b sees the size" \
    test "$(st $b $ws/s/f33 | cut -d' ' -f4)" = 7
  check "mode $m: read ahead, then truncate on node $c: node $b sees the size" test "$(st $b $ws/s/f34 | cut -d' ' -f4)" = 1
  check "mode $m: an entry read ahead and not changed reads back on node $b" test "$(on $b cat $ws/s/f40)" = 0123
  on $a rm -r "$ws/s"
done

# Changes told to nodes busy with their own changes in the same place. Every node reads every
# entry of a shared directory (so each removal is told to the three others), then all four
# remove their own entries at once: a told node's kernel needs the directory's lock, which its
# own removal holds while its owner waits to tell a node in the same state. And four nodes
# write one file in interleaved records while each reads its size: a size told to a node drops
# its attributes only, not pages its own write holds locked. Nothing may wait for a deadline.
ws=$mnt/c3
on 0 mkdir "$ws/busy"
for n in 0 1 2 3; do on $n python3 -c "
import os, sys
for i in range(150): os.close(os.open(f'{sys.argv[1]}/n$n.{i}', os.O_CREAT | os.O_WRONLY, 0o644))" "$ws/busy" & done
wait
for n in 0 1 2 3; do on $n ls -l "$ws/busy" >/dev/null & done
wait
failed0=$(sum_of 's["invalidations"]["failed"]')
start=$(date +%s%N)
pids=()
for n in 0 1 2 3; do on $n python3 -c "
import os, sys
for i in range(150): os.unlink(f'{sys.argv[1]}/n$n.{i}')" "$ws/busy" & pids+=($!); done
for n in 0 1 2 3; do on $n python3 -c "
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for k in range($n, 400, 4):
    os.pwrite(fd, bytes([k % 251]) * 47008, k * 47008)
    os.stat(sys.argv[1])
os.close(fd)" "$ws/shared" & pids+=($!); done
ok=0
for p in "${pids[@]}"; do wait "$p" && ok=$((ok + 1)); done
took=$((($(date +%s%N) - start) / 1000000))
failed1=$(sum_of 's["invalidations"]["failed"]')
deferred=$(sum_of 's["invalidations"]["deferred"]')
echo "     600 removals and 400 shared-file writes on 4 nodes: ${took} ms, $deferred invalidations acknowledged before the kernel took them"
check "busy nodes: every removal and write succeeded ($ok of 8 processes)" test "$ok" = 8
check "busy nodes: no invalidation waited for its deadline ($((failed1 - failed0)) failed)" test "$((failed1 - failed0))" = 0
check "busy nodes: every node lists the directory empty" \
  test "$(for n in 0 1 2 3; do on $n ls "$ws/busy"; done | wc -l)" = 0
check "busy nodes: the shared file has its full size on every node" \
  test "$(for n in 0 1 2 3; do st $n "$ws/shared" | cut -d' ' -f4; done | sort -u)" = $((400 * 47008))
on 0 rm "$ws/shared"

# A node that cannot be told in time (its daemon stopped) sees the change once it runs again,
# not when its kernel's cache (300 s) runs out: what was sent waits in its connection, and what
# a broken connection lost its owner sends again (fs/core/coherence/coherence_test.cc covers that part).
ws=$mnt/c3
on 1 sh -c "printf 0123456789 > $ws/late"
check "node 2 caches late as 10 bytes" test "$(st 2 $ws/late | cut -d' ' -f4)" = 10
pid2=$("$bbctl" emulate status --json | python3 -c 'import json, sys; print([n["pid"] for n in json.load(sys.stdin) if n["node"] == 2][0])')
kill -STOP "$pid2"
on 1 truncate -s 4 "$ws/late" || true  # waits for node 2 at most its deadline
kill -CONT "$pid2"
sleep 3
check "node 2 stopped while late was cut: once back it sees the cut (owed: $(stat_of 1 's["invalidations"]["owed"]'))" \
  test "$(st 2 $ws/late | cut -d' ' -f4)" = 4

# drop-caches: the node's kernel and daemon forget every entry (as a node owed too many
# invalidations does) and go on serving, asking the owners again.
st 2 "$ws/late" >/dev/null
asked0=$(stat_of 2 's["ops"]["lookup"] + s["ops"]["getattr"]')
st 2 "$ws/late" >/dev/null
asked1=$(stat_of 2 's["ops"]["lookup"] + s["ops"]["getattr"]')
"$bbctl" drop-caches --node 2 >/dev/null
check "drop-caches: node 2 serves on and reads late afresh" test "$(st 2 $ws/late | cut -d' ' -f4)" = 4
asked2=$(stat_of 2 's["ops"]["lookup"] + s["ops"]["getattr"]')
check "drop-caches: a cached stat asked node 2's daemon nothing ($((asked1 - asked0))), after the drop it did ($((asked2 - asked1)))" \
  test $((asked1 - asked0)) -eq 0 -a $((asked2 - asked1)) -ge 1

received=$(stat_of 2 's["invalidations"]["received"]')
failed=$(sum_of 's["invalidations"]["failed"]')
check "node 2's kernel was told of the changes ($received invalidations), none failed but those to the stopped node ($failed)" \
  test "$received" -ge 20 -a "$failed" -le 2

# A stream's node killed with names reserved and entries not yet sent (empty files go in 20 ms
# batches): every other node's stat of those names answers within the deadline (found, absent, or
# EIO for names whose owner is the dead node), and once it runs again every node lists the same
# files, and a name it made but never sent can be made anew.
ws=$mnt/c3
on 1 mkdir "$ws/dying"
on 1 python3 -c "
import sys
for i in range(200): open(f'{sys.argv[1]}/f{i}', 'w').close()" "$ws/dying"
"$bbctl" emulate kill --node 1 >/dev/null
start=$(date +%s)
answered=0
for i in $(seq 0 10 199); do
  out=$(on 3 stat -c %s "$ws/dying/f$i" 2>&1) || true
  case "$out" in 0|*"No such file"*|*"Input/output error"*|*"timed out"*) answered=$((answered + 1)) ;; *) echo "     f$i: $out" ;; esac
done
took=$(( $(date +%s) - start ))
check "a stream's node killed: 20 stats of its names on node 3 answered ($answered) in ${took}s, under 30 s" \
  test "$answered" = 20 -a "$took" -lt 30
"$bbctl" emulate restart --node 1 >/dev/null
counts=$(for n in 0 1 2 3; do (on $n ls "$ws/dying" || echo failed) | wc -l; done | sort -u | tr '\n' ' ')
check "after its restart every node lists the same files of the dead node's stream ($counts)" \
  test "$(echo $counts | wc -w)" = 1 -a "${counts% }" -le 200 -a "${counts% }" -gt 0
missing=$(on 0 python3 -c "
import os, sys
have = set(os.listdir(sys.argv[1]))
print(next((f'f{i}' for i in range(200) if f'f{i}' not in have), 'none'))" "$ws/dying")
if [ "$missing" != none ]; then
  check "a name the dead node made but never sent ($missing) is made anew with O_EXCL on node 2, and seen on node 3" \
    sh -c "'$bbctl' exec --node 2 -- python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_CREAT | os.O_EXCL | os.O_WRONLY))' '$ws/dying/$missing' && '$bbctl' exec --node 3 -- test -e '$ws/dying/$missing'"
fi
on 0 rm -r "$ws/dying"

# A name's node killed while a stream holds its lease of the directory (fs/core/creates/dir_leases.h):
# the stream goes on making files of that node's names for the rest of the lease's term, their
# entries wait (sent again every second), and once the node runs again every node lists all of
# them and none was lost.
on 1 mkdir "$ws/owner"
rm -f "$tmp/owner_ready" "$tmp/owner_killed"
lost0=$(stat_of 1 's["small_files"]["lost"]')
on 1 python3 -c "
import os, sys, time
d, t = sys.argv[1], sys.argv[2]
for i in range(50): open(f'{d}/a{i}', 'w').close()
open(f'{t}/owner_ready', 'w').close()
while not os.path.exists(f'{t}/owner_killed'): time.sleep(0.01)
made = 0
for i in range(20):
    try:
        open(f'{d}/b{i}', 'w').close(); made += 1
    except OSError:
        pass
open(f'{t}/owner_made', 'w').write(str(made))" "$ws/owner" "$tmp" &
maker=$!
for _ in $(seq 1000); do [ -e "$tmp/owner_ready" ] && break; sleep 0.01; done
"$bbctl" emulate kill --node 2 >/dev/null
touch "$tmp/owner_killed"
wait "$maker" || true
"$bbctl" emulate restart --node 2 >/dev/null
want=$((50 + $(cat "$tmp/owner_made" 2>/dev/null || echo 0)))
for _ in $(seq 50); do [ "$(stat_of 1 's["small_files"]["waiting"]')" = 0 ] && break; sleep 0.2; done
counts=$(for n in 0 1 2 3; do (on $n ls "$ws/owner" || echo failed) | wc -l; done | sort -u | tr '\n' ' ')
check "a name's node killed under a stream's lease: after its restart every node lists the $want files made ($counts)" \
  test "$counts" = "$want "
check "a name's node killed under a stream's lease: no entry was lost" test "$(stat_of 1 's["small_files"]["lost"]')" = "$lost0"
on 0 rm -r "$ws/owner"

# A node restarted forgets who caches the names it holds: every other node drops its caches
# before the restarted node serves it, so a change made through it afterwards is seen at once.
ws=$mnt/c3
on 0 mkdir "$ws/restarted"
on 0 sh -c "for i in \$(seq 40); do echo old\$i > $ws/restarted/f\$i; done"
on 2 sh -c "for i in \$(seq 40); do cat $ws/restarted/f\$i >/dev/null; done"  # node 2's kernel caches them
"$bbctl" emulate kill --node 1 >/dev/null
"$bbctl" emulate restart --node 1 >/dev/null
on 3 sh -c "for i in \$(seq 40); do echo new\$i > $ws/restarted/n\$i && mv $ws/restarted/n\$i $ws/restarted/f\$i; done"
stale=$(on 2 sh -c "for i in \$(seq 40); do [ \"\$(cat $ws/restarted/f\$i 2>&1)\" = new\$i ] || echo f\$i; done" | wc -l)
check "after a node's restart, names it holds replaced on node 3 read new on node 2, which cached them before ($stale of 40 stale)" \
  test "$stale" = 0
on 0 rm -r "$ws/restarted"
# The namespace against a model across a restart: half the operations, a node killed and started
# again once they settled, then the rest; everything answered before it is there after.
for mr in "3 2" "2 4"; do
  set -- $mr
  on 0 mkdir "$mnt/c$1/ns"
  out=$(python3 "$src/test/namespace_oracle.py" "$bbctl" "$mnt/c$1/ns" 1000 $2 --restart 2>&1 | tail -3 | tr '\n' ' ' || true)
  check "mode $1: the namespace against a model across a restart ($out)" test -n "$(echo "$out" | grep ' 0 wrong')"
  on 0 rm -rf "$mnt/c$1/ns"
done
