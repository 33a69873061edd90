#!/usr/bin/env bash
# Real tools inside a mounted burst buffer: cp -a + diff -r of a source tree, a tar round trip,
# git init + commit, fio write/verify jobs. The daemon is started detached, as users start it.
# Always stops the daemon, detaches the mount and removes its folder, also on failure.
set -euo pipefail
bbd=${1:?usage: mounted_tools.sh PATH_TO_BBD}
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/bb-tools-XXXXXX)
mnt=$tmp/mnt
root=$tmp/root
mkdir -p "$mnt"

spaced="$tmp/with space/mnt"
spaced_root="$tmp/spaced root"
syslog_root="$tmp/syslog-root"
syslog_listener=
cleanup() {
  local rc=$?
  for r in "$root" "$spaced_root" "$syslog_root"; do
    [ -f "$r/bbd.lock" ] || continue
    pid=$(cat "$r/bbd.lock" 2>/dev/null || true)
    if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  grep -q " $mnt " /proc/self/mountinfo && umount -l "$mnt"
  grep -q " ${spaced// /\\\\040} " /proc/self/mountinfo && umount -l "$spaced"
  grep -q " $tmp/syslog-mnt " /proc/self/mountinfo && umount -l "$tmp/syslog-mnt"
  if [ -n "$syslog_listener" ]; then kill "$syslog_listener" 2>/dev/null || true; rm -f /dev/log; fi
  rm -rf "$tmp"
  if [ $rc -eq 0 ]; then echo "mounted_tools: all passed"; else echo "mounted_tools: FAILED (rc $rc)"; fi
  exit $rc
}
trap cleanup EXIT

step() { echo "== $*"; }

step "start bbd detached (on a root an earlier run left readable by all)"
mkdir -p "$root" && chmod 755 "$root" && touch "$root/bbd.log" && chmod 644 "$root/bbd.log"
"$bbd" --root "$root" --mount "$mnt"
grep -q " $mnt " /proc/self/mountinfo

step "the backing store is private: root 0700, the database, log and lock 0600; nobody else reads it"
[ "$(stat -c %a "$root")" = 700 ]
[ "$(stat -c %a "$root/bbd.log")" = 600 ] && [ "$(stat -c %a "$root/bbd.lock")" = 600 ]
[ -z "$(find "$root/meta" -perm /077 -print -quit)" ]
! su -s /bin/sh nobody -c "ls '$root/meta'" 2>/dev/null
! su -s /bin/sh nobody -c "cat '$root/bbd.log'" 2>/dev/null

step "log rotation: SIGHUP reopens bbd.log (private) and leaves the mount; SIGTERM alone unmounts"
mv "$root/bbd.log" "$root/bbd.log.1"
kill -HUP "$(cat "$root/bbd.lock")"
for _ in $(seq 50); do [ -s "$root/bbd.log" ] && break; sleep 0.1; done
grep -q 'log reopened' "$root/bbd.log"
[ "$(stat -c %a "$root/bbd.log")" = 600 ]
grep -q " $mnt " /proc/self/mountinfo
touch "$mnt/after-hup" && [ -e "$mnt/after-hup" ] && rm "$mnt/after-hup"

step "cp -a and diff -r of a source tree"
cp -a "$src/fs" "$src/test" "$mnt/"
diff -r "$src/fs" "$mnt/fs"
diff -r "$src/test" "$mnt/test"
[ "$(stat -c '%a %Y' "$src/fs/CMakeLists.txt")" = "$(stat -c '%a %Y' "$mnt/fs/CMakeLists.txt")" ]

step "bbctl stage in and out: verified, with modes and times, resumed after a corruption"
bbctl=$(dirname "$bbd")/bbctl
data=$tmp/data
cp -a "$src/fs" "$data"
head -c 300000 /dev/urandom > "$data/big.bin"  # 5 pieces of 64 KiB
ln -s core/file_system.h "$data/link"
"$bbctl" stage in "$data" "$mnt/staged" --piece-size 64KiB --threads 4 --quiet
diff -r "$data" "$mnt/staged"
[ "$(readlink "$mnt/staged/link")" = core/file_system.h ]
[ "$(stat -c '%a %Y' "$data/core")" = "$(stat -c '%a %Y' "$mnt/staged/core")" ]
[ "$(stat -c '%a %Y' "$data/big.bin")" = "$(stat -c '%a %Y' "$mnt/staged/big.bin")" ]
[ -s "$mnt/staged.bbstage.json" ]
printf 'X' | dd of="$mnt/staged/big.bin" bs=1 seek=70000 conv=notrunc status=none
touch -r "$data/big.bin" "$mnt/staged/big.bin"  # same size and time: only the checksum tells
out=$("$bbctl" stage in "$data" "$mnt/staged" --piece-size 64KiB --quiet --json)
echo "$out" | grep -q '"files_copied":1,' || { echo "resume copied more or less than the corrupted file: $out"; exit 1; }
cmp "$data/big.bin" "$mnt/staged/big.bin"
"$bbctl" stage out "$mnt/staged" "$tmp/out" --quiet
diff -r "$data" "$tmp/out"
set +e
"$bbctl" stage out "$mnt/no-such" "$tmp/out2" --quiet 2>"$tmp/stage.err"; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'no-such' "$tmp/stage.err"

step "staging: odd names, 10,000 small files, an interrupted run resumed, a full destination"
odd=$tmp/odd
mkdir -p "$odd/many"
printf 'a' > "$odd/with space"; printf 'b' > "$odd/new
line"; printf 'c' > "$odd/$(printf 'bad\xff\xfebytes')"; printf 'd' > "$odd/ünïcödé"
(cd "$odd/many" && seq -f 'f%05g' 10000 | xargs -n 1000 touch && for f in f0000[1-9]; do echo "$f" > "$f"; done)
"$bbctl" stage in "$odd" "$mnt/odd" --quiet
diff -r "$odd" "$mnt/odd"
[ "$(find "$mnt/odd/many" -type f | wc -l)" = 10000 ]
"$bbctl" stage out "$mnt/odd" "$tmp/odd-back" --quiet
diff -r "$odd" "$tmp/odd-back"
# Interrupted: killed once its manifest lists some files, a second run copies only the rest.
big=$tmp/bigtree
mkdir -p "$big"
for i in $(seq 60); do head -c 12000000 /dev/urandom > "$big/f$i"; done
"$bbctl" stage in "$big" "$mnt/big" --quiet --threads 1 & stager=$!
for _ in $(seq 300); do
  [ -s "$mnt/big.bbstage.json" ] && grep -q '"f' "$mnt/big.bbstage.json" && break
  sleep 0.1
done
kill -9 $stager 2>/dev/null || true
wait $stager 2>/dev/null || true
out=$("$bbctl" stage in "$big" "$mnt/big" --quiet --json)
copied=$(echo "$out" | /usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["files_copied"], j["files_verified_already"])')
echo "resumed: copied, already there: $copied"
[ "${copied% *}" -gt 0 ] && [ "${copied#* }" -gt 0 ] && [ $((${copied% *} + ${copied#* })) = 60 ]
diff -r "$big" "$mnt/big"
# A full destination: the failure names the files that did not fit.
mkdir "$tmp/small"
mount -t tmpfs -o size=6m tmpfs "$tmp/small"
set +e
"$bbctl" stage out "$mnt/big" "$tmp/small/out" --quiet 2>"$tmp/full.err"; rc=$?
set -e
umount "$tmp/small"
[ $rc -eq 1 ] && grep -q "not staged: f[0-9]*" "$tmp/full.err" && grep -q FAILED "$tmp/full.err"

step "tar round trip"
tar -C "$mnt" -cf "$tmp/tree.tar" fs test
mkdir "$mnt/untar"
tar -C "$mnt/untar" -xf "$tmp/tree.tar"
diff -r "$src/fs" "$mnt/untar/fs"
tar -C "$mnt" -cf "$mnt/inside.tar" fs
tar -tf "$mnt/inside.tar" | grep 'fs/core/file_system.h' >/dev/null  # grep -q would SIGPIPE tar

step "git init, add, commit, fsck"
mkdir "$mnt/repo"
cp "$src"/fs/core/*.h "$mnt/repo/"
(
  cd "$mnt/repo"
  git init -q .
  git -c user.name=ci -c user.email=ci@example.invalid add .
  git -c user.name=ci -c user.email=ci@example.invalid commit -q -m "first"
  echo "// change" >> file_system.h
  git -c user.name=ci -c user.email=ci@example.invalid commit -q -am "second"
  [ "$(git rev-list --count HEAD)" = 2 ]
  git fsck --full --strict 2>&1
  git status --porcelain | wc -l | grep -qx 0
)

step "fio write + crc32c verify, 1 MiB blocks"
fio --name=seq1m --directory="$mnt" --rw=write --bs=1M --size=64M --numjobs=2 \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --ioengine=psync --output-format=terse >/dev/null
step "fio random write + crc32c verify, 4 KiB blocks"
fio --name=rand4k --directory="$mnt" --rw=randwrite --bs=4k --size=8M --numjobs=2 \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --ioengine=psync --output-format=terse >/dev/null

step "stop with SIGTERM unmounts cleanly"
pid=$(cat "$root/bbd.lock")
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$pid" 2>/dev/null
! grep -q " $mnt " /proc/self/mountinfo

step "a mount path with a space: mounted, seen as mounted (mountinfo escapes it as \\040), not mounted over;"
echo "   --fsname names the mount's source, and a name that would add a mount option is refused"
mkdir -p "$spaced"
smuggled=$("$bbd" --root "$spaced_root" --mount "$spaced" --fsname "x,allow_other" 2>&1) && exit 1
grep -q "fsname" <<< "$smuggled"
"$bbd" --root "$spaced_root" --mount "$spaced" --fsname bb-second
grep -q " ${spaced// /\\\\040} " /proc/self/mountinfo
[ "$(findmnt -n -o SOURCE,FSTYPE --target "$spaced")" = "bb-second fuse.bbfs" ]
echo hello > "$spaced/f" && [ "$(cat "$spaced/f")" = hello ]
second=$("$bbd" --root "$tmp/second root" --mount "$spaced" 2>&1) && exit 1
grep -q "already has a file system mounted" <<< "$second"
kill -TERM "$(cat "$spaced_root/bbd.lock")"
for _ in $(seq 100); do grep -q " ${spaced// /\\\\040} " /proc/self/mountinfo || break; sleep 0.1; done
! grep -q " ${spaced// /\\\\040} " /proc/self/mountinfo

step "log_to: syslog — the daemon's lines go to /dev/log (ident bbd, facility daemon)"
if [ -e /dev/log ]; then
  echo "   (skipped: a syslog daemon or journald owns /dev/log here; journalctl -t bbd shows the lines)"
else
  /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind("/dev/log")
with open(sys.argv[1], "ab", buffering=0) as out:
    while True: out.write(s.recv(65536) + b"\n")
' "$tmp/syslog.txt" & syslog_listener=$!
  for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
  mkdir -p "$tmp/syslog-mnt"
  "$bbd" --root "$syslog_root" --mount "$tmp/syslog-mnt" --log-to syslog
  kill -TERM "$(cat "$syslog_root/bbd.lock")"
  for _ in $(seq 100); do grep -q " $tmp/syslog-mnt " /proc/self/mountinfo || break; sleep 0.1; done
  grep -q '<[0-9]*>.*bbd\[[0-9]*\]: .*mounted' "$tmp/syslog.txt"
  grep -q 'unmounted' "$tmp/syslog.txt"
  [ ! -s "$syslog_root/bbd.log" ]
  kill "$syslog_listener"; wait "$syslog_listener" 2>/dev/null || true; syslog_listener=; rm -f /dev/log
fi
