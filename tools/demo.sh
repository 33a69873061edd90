#!/usr/bin/env bash
# The main job: installs the Debian packages, builds, mounts a burst buffer node, runs a small
# workload in it (write, read back, metadata storm, fio), prints the results and stops the node.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh >/dev/null
./tools/build.sh >/dev/null
bbd=$PWD/build/bin/bbd
work=$(mktemp -d /tmp/bb-demo-XXXXXX)
mnt=$work/mnt
mkdir -p "$mnt"

stop() {
  if [ -f "$work/root/bbd.lock" ]; then
    pid=$(cat "$work/root/bbd.lock" 2>/dev/null || true)
    if [ -n "${pid:-}" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  fi
  grep -q " $mnt " /proc/self/mountinfo && umount -l "$mnt" 2>/dev/null
  rm -rf "$work"
}
trap stop EXIT

"$bbd" --root "$work/root" --mount "$mnt"
echo
echo "== a checkpoint: 4 ranks write 64 MiB each, then read back"
fio --name=checkpoint --directory="$mnt" --rw=write --bs=1M --size=64M --numjobs=4 \
    --ioengine=psync --group_reporting --output-format=normal | grep -E '^\s+(WRITE|READ):'
fio --name=checkpoint --directory="$mnt" --rw=read --bs=1M --size=64M --numjobs=4 \
    --ioengine=psync --group_reporting --output-format=normal | grep -E '^\s+(WRITE|READ):'
echo
echo "== a metadata storm: 5,000 files created, stat'ed and removed"
start=$(date +%s.%N)
mkdir "$mnt/storm"
for i in $(seq 5000); do : > "$mnt/storm/f$i"; done
created=$(date +%s.%N)
find "$mnt/storm" -type f | wc -l | xargs echo "files listed:"
rm -rf "$mnt/storm"
end=$(date +%s.%N)
awk -v a="$start" -v b="$created" -v c="$end" \
  'BEGIN { printf "create: %.0f files/s (from a shell loop), list+remove: %.2f s\n", 5000/(b-a), c-b }'
echo
echo "== the mount"
df -h "$mnt"
ls -la "$mnt"
