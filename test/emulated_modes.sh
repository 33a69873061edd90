#!/usr/bin/env bash
# The four layout modes on a 4-node emulated cluster (1 Gbit/s links, UCX over TCP): one
# workspace per mode side by side, each checked for what its mode promises, with the daemons'
# statistics saying where the work went, and one file's data and size against a model in each
# (test/file_oracle.py). Needs root. Always tears the cluster down.
set -euo pipefail
bin=${1:?usage: emulated_modes.sh BUILD_BIN_DIR SOURCE_DIR}
src=${2:?usage: emulated_modes.sh BUILD_BIN_DIR SOURCE_DIR}
bbctl=$bin/bbctl
source "$(dirname "$0")/lib.sh"
cluster_test emulated_modes

md5() { md5sum | cut -d' ' -f1; }
# stat NODE PYTHON-EXPRESSION: evaluates the expression over node NODE's statistics `s`.
stat() { "$bbctl" stats --node "$1" --json | python3 -c "import json, sys; s = json.load(sys.stdin); print($2)"; }
# Metadata requests node N sent to each node, as "a b c d".
meta_to() { stat "$1" '" ".join(str(t["meta_requests"]) for t in s["to"])'; }

# Jumbo frames here (bbctl emulate up --mtu); emulated_cluster.sh runs with the default.
# The kernel caches attributes and entries for 5 s (a site's choice; a cluster's default is 0),
# so the coherence checks below see what a cached size or entry would hide.
"$bbctl" emulate up --nodes 4 --link-rate 1gbit --mtu 9000 --root "$root" --mount "$mnt" -- --rpc-timeout 3000 \
  --cache-timeout 5 --xattrs on >/dev/null
check "node links have the MTU asked for" sh -c "ip -n bbnode3 link show eth0 | grep -q 'mtu 9000 '"

# Bad mode files are rejected, naming the field and the line, and change nothing.
before=$("$bbctl" job list)
printf 'mode: 2\nmetadata_server_ratio: 1.5\n' > "$tmp/bad1.yaml"
printf 'mode: 3\nchunk_size: 3000\n' > "$tmp/bad2.yaml"
printf 'mode: 3\nstripe: 4\n' > "$tmp/bad3.yaml"
printf 'mode: 7\n' > "$tmp/bad4.yaml"
for f in bad1:"2: field 'metadata_server_ratio'" bad2:"2: field 'chunk_size'" bad3:"2: unknown field 'stripe'" bad4:"1: field 'mode'"; do
  name=${f%%:*}; want=${f#*:}
  out=$("$bbctl" job start --name "$name" --mode-file "$tmp/$name.yaml" 2>&1) && rc=0 || rc=$?
  check "bad mode file $name.yaml is rejected: $out" test $rc -ne 0 -a -n "$(echo "$out" | grep -F "$name.yaml:$want")"
done
check "rejected mode files changed nothing" test "$("$bbctl" job list)" = "$before" -a -z "$(on 1 ls "$mnt")"

# One workspace per mode, side by side.
for m in 1 2 3 4; do "$bbctl" job start --name "m$m" --mode-file "$src/configs/modes/mode$m.yaml" >/dev/null; done
check "job list --json: the four workspaces with their modes and paths" sh -c "'$bbctl' job list --json | python3 -c \"import json, sys; j = json.load(sys.stdin); sys.exit(not (sorted((x['name'], x['mode']) for x in j) == [('m1', 1), ('m2', 2), ('m3', 3), ('m4', 4)] and all(x['path'] for x in j)))\""
check "four workspaces with different modes side by side on every node" \
  test "$(for n in 0 1 2 3; do on $n ls "$mnt"; done | sort | uniq -c | awk '{print $1 $2}' | tr '\n' ' ')" = "4m1 4m2 4m3 4m4 "

for n in 0 1 2 3; do head -c $((1024 * 1024 + 777 * n)) /dev/urandom > "$tmp/data$n"; done
for m in 1 2 3 4; do
  ws=$mnt/m$m
  w_before=$(stat 0 's["to"][0]["write_bytes"]')
  o_before=$(stat 0 's["to"][1]["write_bytes"] + s["to"][2]["write_bytes"] + s["to"][3]["write_bytes"]')
  # N-N: each node writes its own file and reads it back.
  for n in 0 1 2 3; do on $n cp "$tmp/data$n" "$ws/n$n.dat" & done; wait
  same=1
  for n in 0 1 2 3; do [ "$(on $n cat "$ws/n$n.dat" | md5)" = "$(md5 < "$tmp/data$n")" ] || same=0; done
  check "mode $m: N-N write then read back on the same node" test $same = 1

  # Another node's file.
  if [ $m = 1 ]; then
    out=$(on 3 cat "$ws/n0.dat" 2>&1 >/dev/null) || true
    check "mode 1: node 3 reading node 0's file gets ENOENT ($out)" test -n "$(echo "$out" | grep 'No such file')"
  else
    r0=$(stat 3 's["to"][0]["read_bytes"]'); r1=$(stat 3 's["to"][1]["read_bytes"]'); r2=$(stat 3 's["to"][2]["read_bytes"]')
    check "mode $m: node 3 reads node 0's file correctly" test "$(on 3 cat "$ws/n0.dat" | md5)" = "$(md5 < "$tmp/data0")"
    if [ $m = 4 ]; then
      d0=$(( $(stat 3 's["to"][0]["read_bytes"]') - r0 ))
      d12=$(( $(stat 3 's["to"][1]["read_bytes"]') - r1 + $(stat 3 's["to"][2]["read_bytes"]') - r2 ))
      check "mode 4: node 3 read it from the writer, node 0 ($d0 bytes; $d12 from nodes 1-2)" \
        test $d0 -ge $((1024 * 1024)) -a $d12 = 0
      w=$(( $(stat 0 's["to"][0]["write_bytes"]') - w_before ))
      o=$(( $(stat 0 's["to"][1]["write_bytes"] + s["to"][2]["write_bytes"] + s["to"][3]["write_bytes"]') - o_before ))
      check "mode 4: node 0 wrote only to itself ($w local bytes, $o remote)" test "$o" = 0 -a "$w" -ge $((1024 * 1024))
    fi
  fi

  # A shared file written by all nodes (interleaved records), read back on every node.
  if [ $m != 1 ]; then
    writer='import os, sys
path, node, nodes, records = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
for k in range(node, records, nodes):
    os.pwrite(fd, bytes([(k * 7 + j) % 251 for j in range(47008)]), k * 47008)
os.close(fd)'
    on 0 touch "$ws/shared"
    for n in 0 1 2 3; do on $n python3 -c "$writer" "$ws/shared" $n 4 48 & done; wait
    [ -f "$tmp/shared" ] || python3 -c "$writer" "$tmp/shared" 0 1 48
    same=1
    for n in 0 1 2 3; do [ "$(on $n cat "$ws/shared" | md5)" = "$(md5 < "$tmp/shared")" ] || same=0; done
    check "mode $m: a shared file written by all nodes reads back on every node" test $same = 1

    # Extended attributes set on node 1 are read on node 3, also after node 2 renamed the file.
    on 1 python3 -c "import os, sys; os.setxattr(sys.argv[1], 'user.tag', b'mode $m')" "$ws/shared" || true
    on 2 mv "$ws/shared" "$ws/shared.renamed"
    tag=$(on 3 python3 -c "import os, sys; print(os.getxattr(sys.argv[1], 'user.tag').decode())" "$ws/shared.renamed") || true
    on 2 mv "$ws/shared.renamed" "$ws/shared"
    check "mode $m: an extended attribute set on node 1 is read on node 3 after node 2's rename ($tag)" \
      test "$tag" = "mode $m"

    # A hole punched on node 2 across chunks of several nodes reads as zeros on node 3, whose
    # kernel read the file before; the size stays.
    on 3 cat "$ws/shared" > /dev/null
    on 2 fallocate --punch-hole --offset 100000 --length 1500000 "$ws/shared"
    python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[100000:1600000] = bytes(1500000)
open(sys.argv[2], 'wb').write(d)" "$tmp/shared" "$tmp/punched"
    check "mode $m: a hole punched on node 2 reads as zeros on node 3, the size kept" \
      test "$(on 3 cat "$ws/shared" | md5)" = "$(md5 < "$tmp/punched")" -a "$(on 3 stat -c %s "$ws/shared")" = $((48 * 47008))

    # A record lock held by a process on node 1 holds on node 2: a try is refused, and a wait
    # lasts until that process exits.
    on 1 python3 -c "import fcntl, sys, time
f = open(sys.argv[1], 'r+'); fcntl.lockf(f, fcntl.LOCK_EX, 100, 0); open(sys.argv[2], 'w').close(); time.sleep(2)" \
      "$ws/shared" "$tmp/held$m" &
    holder=$!
    for _ in $(seq 200); do [ -e "$tmp/held$m" ] && break; sleep 0.05; done
    tried=$(on 2 python3 -c "import fcntl, sys
f = open(sys.argv[1], 'r+')
try: fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 10, 50); print('taken')
except OSError: print('refused')" "$ws/shared")
    waited=$(on 2 python3 -c "import fcntl, sys, time
f = open(sys.argv[1], 'r+'); t = time.time(); fcntl.lockf(f, fcntl.LOCK_EX, 10, 50)
print('after' if time.time() - t > 0.5 else 'at once')" "$ws/shared")
    wait $holder
    check "mode $m: a lock held on node 1 refuses node 2's try ($tried) and its wait ends after the holder ($waited)" \
      test "$tried $waited" = "refused after"

    # The same with flock(2), as a job script's flock(1) takes it: held by a process on node 1,
    # refused to node 2's `flock -n` and waited for by its `flock`.
    on 1 python3 -c "import fcntl, sys, time
f = open(sys.argv[1], 'r+'); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], 'w').close(); time.sleep(2)" \
      "$ws/shared" "$tmp/flocked$m" &
    holder=$!
    for _ in $(seq 200); do [ -e "$tmp/flocked$m" ] && break; sleep 0.05; done
    tried=$(on 2 flock -n -E 75 "$ws/shared" true && echo taken || { [ $? = 75 ] && echo refused; }) || true
    t0=$(date +%s%N)
    on 2 flock "$ws/shared" true
    waited=$(( ($(date +%s%N) - t0) / 1000000 ))
    wait $holder
    check "mode $m: flock held on node 1 refuses node 2's flock -n ($tried) and its flock waits for the holder (${waited} ms)" \
      test "$tried" = refused -a "$waited" -gt 500

    # Close-to-open: node 1 has the file's size cached (stat) when node 0 appends to it and
    # closes; node 1's next open reads it all, within the kernel's 5-s attribute timeout.
    on 0 sh -c "head -c 1000 /dev/zero > '$ws/grow'"
    before=$(on 1 stat -c %s "$ws/grow")
    on 0 sh -c "head -c 3000 /dev/zero >> '$ws/grow'"
    after=$(on 1 sh -c "cat '$ws/grow' | wc -c")
    check "mode $m: close-to-open: node 1 saw $before bytes, then read $after after node 0's append (1000, 4000)" \
      test "$before/$after" = 1000/4000

    # O_APPEND from every node at once: each node's 200 lines land whole, none over another.
    for n in 0 1 2 3; do
      on $n sh -c "for i in \$(seq 1 200); do echo node$n-line\$i >> '$ws/applog'; done" &
    done
    wait
    lines=$(on 2 cat "$ws/applog" | sort -u | grep -c '^node[0-3]-line[0-9]*$')
    check "mode $m: 4 nodes appending at once: $lines distinct whole lines of 800" \
      test "$lines" = 800 -a "$(on 1 cat "$ws/applog" | wc -l)" = 800
  fi

  # 10,000 creates, stats and removes (2,500 per node, each in its own directory).
  before=(); for n in 0 1 2 3; do before+=("$(meta_to $n)"); done
  meta='import os, sys
d, count = sys.argv[1], int(sys.argv[2])
os.mkdir(d)
for i in range(count): os.close(os.open(f"{d}/f{i}", os.O_CREAT | os.O_WRONLY, 0o644))
ok = sum(1 for i in range(count) if os.stat(f"{d}/f{i}").st_size == 0)
for i in range(count): os.unlink(f"{d}/f{i}")
os.rmdir(d)
print(ok)'
  for n in 0 1 2 3; do on $n python3 -c "$meta" "$ws/md$n" 2500 > "$tmp/md$n" & done; wait
  check "mode $m: 10,000 creates, stats and removes over 4 nodes" test "$(awk '{s += $1} END {print s}' "$tmp"/md?)" = 10000
  if [ $m = 2 ]; then
    # ratio 0.25 of 4 nodes: node 0 is the only metadata server. At least an unlink per file of
    # nodes 1-3 reaches it (each process is a stream of small files in a directory node 0 leases
    # to its node, whose lookups are answered there and whose entries go to node 0 in batches:
    # fs/core/creates/dir_leases.h, deferred_creates.h; before leases a lookup per file went too, and
    # before streams a create).
    elsewhere=0; to0=0
    for n in 0 1 2 3; do
      read -r a b c d <<< "$(meta_to $n)"; read -r a0 b0 c0 d0 <<< "${before[$n]}"
      to0=$((to0 + a - a0)); elsewhere=$((elsewhere + b - b0 + c - c0 + d - d0))
    done
    check "mode 2 (ratio 0.25): all $to0 metadata requests went to node 0, $elsewhere elsewhere" test $elsewhere = 0 -a $to0 -ge 7500
  fi
done

# A directory's st_nlink counts subdirectories made on any node, and its mtime moves with
# entries made elsewhere: on the node that made them at once, on the others within the
# coalescing interval (20 ms) plus their kernel's attribute cache (5 s here). Modes 2-4 (in
# mode 1 every node has its own directory).
for m in 2 3 4; do on 0 mkdir "$mnt/m$m/nl"; t0[$m]=$(on 0 stat -c %y "$mnt/m$m/nl"); done
sleep 0.1
for m in 2 3 4; do
  for n in 1 2 3; do on $n mkdir "$mnt/m$m/nl/s$n"; done
  mine[$m]=$(on 3 stat -c %h "$mnt/m$m/nl")
done
sleep 5.3
for m in 2 3 4; do
  all[$m]=$(for n in 0 1 2 3; do on $n stat -c %h "$mnt/m$m/nl"; done | tr '\n' ' ')
  t1[$m]=$(on 0 stat -c %y "$mnt/m$m/nl")
  on 2 rmdir "$mnt/m$m/nl/s2"
done
sleep 5.3
for m in 2 3 4; do
  after=$(for n in 0 1 2 3; do on $n stat -c %h "$mnt/m$m/nl"; done | tr '\n' ' ')
  check "mode $m: st_nlink counts subdirectories made on three nodes (node 3 at once: ${mine[$m]}; every node: ${all[$m]}; after an rmdir: $after)" \
    test "${mine[$m]}" -ge 3 -a "${all[$m]}" = "5 5 5 5 " -a "$after" = "4 4 4 4 "
  check "mode $m: the directory's mtime moved with them, seen on node 0 (${t0[$m]} -> ${t1[$m]})" test "${t0[$m]}" != "${t1[$m]}"
done

# Hard links in every mode: made on node 0, seen, read and removed from other nodes (mode 1: the
# same node, its namespace is its own). Nodes that never looked at a name have nothing cached.
for m in 1 2 3 4; do
  [ $m = 1 ] && b=0 c=0 || b=2 c=3
  on 0 cp "$tmp/data1" "$mnt/m$m/hl"
  on 0 ln "$mnt/m$m/hl" "$mnt/m$m/hl2"
  want="2 $(on 0 stat -c %i "$mnt/m$m/hl")"
  seen=$(on $b stat -c '%h %i' "$mnt/m$m/hl2")
  check "mode $m: a hard link made on node 0 names the same inode with st_nlink 2 on node $b ($seen, want $want)" test "$seen" = "$want"
  check "mode $m: node $b reads the file through the new name" test "$(on $b cat "$mnt/m$m/hl2" | md5)" = "$(md5 < "$tmp/data1")"
  on $b rm "$mnt/m$m/hl"
  left=$(on $c stat -c %h "$mnt/m$m/hl2")
  check "mode $m: after node $b removed the first name, node $c counts one ($left) and reads the data" \
    test "$left" = 1 -a "$(on $c cat "$mnt/m$m/hl2" | md5)" = "$(md5 < "$tmp/data1")"
  on $c rm "$mnt/m$m/hl2"
  check "mode $m: the last name removed, node 0 lists neither name" test -z "$(on 0 ls "$mnt/m$m" | grep '^hl')"
done

# Paths as long as PATH_MAX allows, named relative to the workspace root (as pjdfstest's
# ENAMETOOLONG tests name them): the longest is made, renamed and removed in every mode, with the
# workspace's own name in front of it inside the file system; one byte more is refused.
long_paths='
import errno, os, sys
os.chdir(sys.argv[1])
names, left = [], 4095  # PATH_MAX - 1, as the call names it
while left > 0:
    n = min(255, left if not names else left - 1)
    names.append("p" * n); left -= n + (1 if len(names) > 1 else 0)
path = "/".join(names)
for i in range(1, len(names)): os.mkdir("/".join(names[:i]))
os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))
os.rename(path, path[:-1] + "q"); os.rename(path[:-1] + "q", path)
assert os.stat(path).st_size == 0 and len(path) == 4095
try:
    os.open(path + "x", os.O_CREAT | os.O_WRONLY, 0o644); sys.exit("a path of PATH_MAX bytes was made")
except OSError as e:
    assert e.errno == errno.ENAMETOOLONG, e
os.unlink(path)
for i in range(len(names) - 1, 0, -1): os.rmdir("/".join(names[:i]))
print("ok")
'
for m in 1 2 3 4; do
  out=$(on 1 python3 -c "$long_paths" "$mnt/m$m" 2>&1 || true)
  check "mode $m: a path of PATH_MAX - 1 bytes below the workspace is made, renamed and removed ($out)" test "$out" = ok
done

# A directory holding a tree is renamed by rename(2) itself (not mv, which copies when it must)
# on node 2 while node 3 has a file deep in it open; every node then finds the tree at its new
# name, with what node 3 wrote after the rename (mode 1: all on node 1, its namespace its own).
make_tree='
import os, sys
os.makedirs(sys.argv[1] + "/t/a/b")
for i in range(40): open("%s/t/f%d" % (sys.argv[1], i), "w").write("file %d\n" % i)
open(sys.argv[1] + "/t/a/b/deep", "w").write("deep\n")
'
for m in 1 2 3 4; do
  ws=$mnt/m$m; mover=2; writer=3; readers="0 1 2 3"
  [ $m = 1 ] && { mover=1; writer=1; readers=1; }
  on 1 python3 -c "$make_tree" "$ws"
  want=$(on $writer sh -c "cd '$ws/t' && find . | sort | md5sum")
  on $writer python3 -c "import sys, time
f = open(sys.argv[1], 'a'); open(sys.argv[2], 'w').close(); time.sleep(1); f.write('more\n'); f.close()" \
    "$ws/t/a/b/deep" "$tmp/tree$m" &
  holder=$!
  for _ in $(seq 200); do [ -e "$tmp/tree$m" ] && break; sleep 0.05; done
  moved=$(on $mover python3 -c "import os, sys; os.rename(sys.argv[1] + '/t', sys.argv[1] + '/t2'); print('ok')" "$ws" 2>&1) || true
  wait $holder
  seen=ok
  for n in $readers; do
    [ "$(on $n sh -c "cd '$ws/t2' && find . | sort | md5sum")" = "$want" ] || seen="node $n lists another tree"
    [ "$(on $n cat "$ws/t2/a/b/deep")" = "$(printf 'deep\nmore')" ] || seen="node $n reads another deep file"
    [ "$(on $n cat "$ws/t2/f7")" = "file 7" ] || seen="node $n reads another f7"
    on $n test -e "$ws/t" && seen="node $n still finds the old name"
  done
  check "mode $m: a directory tree renamed on node $mover ($moved) is found whole at its new name on every node ($seen)" \
    test "$moved $seen" = "ok ok"
  on 1 rm -r "$ws/t2"
done

# One file's data and size against a model (test/file_oracle.py, in the manner of fsx): writes,
# reads, truncates, fallocate and mapped I/O on node 2, in 64 KiB chunks so that they cross
# chunks; the other nodes then read the file the model holds (mode 1: node 2 alone sees it).
for m in 1 2 3 4; do
  sed -e 's/^chunk_size: .*/chunk_size: 64KiB/' "$src/configs/modes/mode$m.yaml" > "$tmp/d$m.yaml"
  "$bbctl" job start --name "d$m" --mode-file "$tmp/d$m.yaml" >/dev/null
  out=$(on 2 python3 "$src/test/file_oracle.py" "$mnt/d$m/f" 3000 $((70 + m)) 2>&1 || true)
  check "mode $m: one file's data and size after 3,000 random operations (${out:0:200})" test "${out%% *}" = ok
  want=${out##* }
  for n in 0 3; do
    [ $m = 1 ] && break
    check "mode $m: node $n reads the file node 2 left" test "$(on $n sha256sum "$mnt/d$m/f" | cut -d' ' -f1)" = "$want"
  done
  "$bbctl" job stop --name "d$m" >/dev/null
done

# Workspaces survive a daemon restart: node 2 comes back routing them the same way.
"$bbctl" emulate kill --node 2 >/dev/null
"$bbctl" emulate restart --node 2 >/dev/null
check "after a restart node 2 lists the four workspaces" test "$("$bbctl" job list --root "$root/node2" | tail -n +2 | awk '{print $1 $2}' | tr '\n' ' ')" = "m11 m22 m33 m44 "
check "after a restart node 2 still sees its own mode 1 file" test "$(on 2 cat "$mnt/m1/n2.dat" | md5)" = "$(md5 < "$tmp/data2")"
check "after a restart node 2 reads node 1's mode 4 file" test "$(on 2 cat "$mnt/m4/n1.dat" | md5)" = "$(md5 < "$tmp/data1")"

# A workspace cannot be removed or renamed as a directory; bbctl job stop removes it everywhere.
check "rmdir of a workspace is refused (EBUSY)" test -n "$(on 1 rmdir "$mnt/m3" 2>&1 | grep -i busy)"
used() { du -sk "$root" | cut -f1; }
u0=$(used)
"$bbctl" job stop --name m3 >/dev/null
"$bbctl" job stop --name m4 >/dev/null
sleep 1  # removed chunk folders are deleted in the background
gone=1; for n in 0 1 2 3; do [ "$(on $n ls "$mnt" | tr '\n' ' ')" = "m1 m2 " ] || gone=0; done
check "job stop removes the workspaces from every node, data freed ($u0 KiB -> $(used) KiB)" test $gone = 1 -a "$(used)" -lt $((u0 - 4000))
check "the other workspaces are intact" test "$(on 3 cat "$mnt/m2/n0.dat" | md5)" = "$(md5 < "$tmp/data0")"
