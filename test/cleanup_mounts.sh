#!/usr/bin/env bash
# Sweeps up after mounted tests whose process died: stops their daemons, detaches their
# mounts and removes their folders. Touches only the tests' own /tmp/bb-* folders.
set -u
bin=${1:-}
# An emulated cluster left by a failed test.
if [ -n "$bin" ] && { [ -e /run/bb-emu ] || [ -e /sys/class/net/bbbr0 ]; }; then
  "$bin/bbctl" emulate down
fi
for pid in $(pgrep -f 'bbd --root /tmp/bb-' 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
sleep 0.5
for pid in $(pgrep -f 'bbd --root /tmp/bb-' 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
# Deepest mounts first.
grep -oE ' /tmp/bb-[^ ]+ ' /proc/self/mountinfo | tr -d ' ' | sort -r | while read -r m; do
  umount -l "$m" 2>/dev/null || fusermount3 -u -z "$m" 2>/dev/null
done
for d in /tmp/bb-mt-* /tmp/bb-small-* /tmp/bb-start-* /tmp/bb-tools-* /tmp/bb-cluster-*; do
  [ -e "$d" ] || continue
  grep -q " $d" /proc/self/mountinfo || rm -rf "$d"
done
left=$(grep -cE ' /tmp/bb-' /proc/self/mountinfo)
emu=$(ip netns list 2>/dev/null | grep -c '^bbnode')
echo "cleanup: ${left} test mounts and ${emu} emulated nodes left"
[ "$left" -eq 0 ] && [ "$emu" -eq 0 ]
