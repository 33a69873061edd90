#!/usr/bin/env bash
# The main job: installs the Debian packages, builds, starts a 4-node emulated cluster (network
# namespaces, 1 Gbit/s links, UCX over TCP), gives the example job a workspace with the layout
# its mode file names, runs the job — a checkpoint written by every node, read back on a
# different node (restart), and a file-create storm — prints what it measured and where the
# data went, and tears the cluster down. Needs root.
# MODE_FILE picks the job's mode file (default configs/modes/mode4.yaml: private writes, then
# global reads, which is what this job does).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "demo.sh: needs root (it builds network and mount namespaces)" >&2; exit 1; }
./tools/install-deps.sh >/dev/null
./tools/build.sh >/dev/null
bbctl=$PWD/build/bin/bbctl
nodes=${NODES:-4}
size=${SIZE:-128M}
mode_file=${MODE_FILE:-configs/modes/mode4.yaml}
work=$(mktemp -d /tmp/bb-demo-XXXXXX)
mnt=$work/mnt
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$bbctl" emulate up --nodes "$nodes" --link-rate 1gbit --root "$work/root" --mount "$mnt"
"$bbctl" emulate status
echo

source "$PWD/tools/lib/cluster_fio.sh"

"$bbctl" job start --name job --mode-file "$mode_file"
mode=$(awk '$1 == "mode:" {print $2}' "$mode_file")
w=$(on_all_nodes bw 0 --name=ckpt --filename="$mnt/job/rank@T" --rw=write --bs=1M --size="$size" --end_fsync=1)
r=$(on_all_nodes bw 1 --name=ckpt --filename="$mnt/job/rank@T" --rw=read --bs=1M --size="$size")
"$bbctl" exec --node 0 -- mkdir "$mnt/job/md"
c=$(on_all_nodes iops 0 --name=md@N --directory="$mnt/job/md" --ioengine=filecreate --filesize=4k \
      --nrfiles=1000 --openfiles=1 --fallocate=none --create_on_open=1)
files=$("$bbctl" exec --node 2 -- sh -c "ls $mnt/job/md | wc -l")
sum0=$("$bbctl" exec --node 0 -- md5sum "$mnt/job/rank0" | cut -d' ' -f1)
sum3=$("$bbctl" exec --node 3 -- md5sum "$mnt/job/rank0" | cut -d' ' -f1)
ok=$([ "$sum0" = "$sum3" ] && echo yes || echo NO)

remote=$("$bbctl" stats --json | python3 -c '
import json, sys
nodes = json.load(sys.stdin)
local = sum(s["to"][s["node"]]["write_bytes"] for s in nodes)
total = sum(t["write_bytes"] for s in nodes for t in s["to"])
print(f"{100 * (total - local) / max(total, 1):.0f}%")')
bound=$(python3 -c "n=$nodes; print(round(125e6 / ((n - 1) / n) / 2**20 * n))")
echo "== job on $nodes emulated nodes, 1 Gbit/s links, workspace $mnt/job in mode $mode ($mode_file)"
printf '%-44s %10s\n' "checkpoint write, 1 MiB blocks, all nodes" "$w MiB/s"
printf '%-44s %10s\n' "  data written to another node" "$remote"
printf '%-44s %10s\n' "  link bound if (N-1)/N crossed (mode 3)" "$bound MiB/s"
printf '%-44s %10s\n' "restart read on a different node" "$r MiB/s"
printf '%-44s %10s\n' "file creates, all nodes" "$c ops/s"
printf '%-44s %10s\n' "files listed from node 2" "$files"
printf '%-44s %10s\n' "node 0's checkpoint identical on node 3" "$ok"
