#!/usr/bin/env bash
# Sweeps up after mounted tests whose process died: stops their daemons, detaches their
# mounts and removes their folders. Touches only the tests' own /tmp/bb-* folders.
set -u
for pid in $(pgrep -f 'bbd --root /tmp/bb-' 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
sleep 0.5
for pid in $(pgrep -f 'bbd --root /tmp/bb-' 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
# Deepest mounts first.
grep -oE ' /tmp/bb-[^ ]+ ' /proc/self/mountinfo | tr -d ' ' | sort -r | while read -r m; do
  umount -l "$m" 2>/dev/null || fusermount3 -u -z "$m" 2>/dev/null
done
for d in /tmp/bb-mt-* /tmp/bb-small-* /tmp/bb-start-* /tmp/bb-tools-*; do
  [ -e "$d" ] || continue
  grep -q " $d" /proc/self/mountinfo || rm -rf "$d"
done
left=$(grep -cE ' /tmp/bb-' /proc/self/mountinfo)
echo "cleanup: ${left} test mounts left"
[ "$left" -eq 0 ]
