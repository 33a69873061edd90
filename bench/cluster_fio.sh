#!/usr/bin/env bash
# fio on the 4-node emulated cluster (1 Gbit/s links both ways, UCX over TCP, layout mode 3):
# N-N and N-1 sequential write and read with 1 MiB blocks, random 4 KiB write and read, file
# create/stat/delete. For sequential work the links bound the rate: with N nodes, (N-1)/N of
# each node's data crosses its link, so the aggregate can reach N x link / ((N-1)/N).
#   bench/cluster_fio.sh [RESULT.md]      (root; default bench/results/cluster_fio.md)
# Environment: NODES (4), RATE (1gbit), SIZE (MiB per node, 512), RUNTIME (s, random I/O, 10),
# FILES (per node, 2000), ROUNDS (N-N write runs, 3). Before every write but the first it touches
# 2 x the data of the run in memory (warm_memory in tools/lib/cluster_fio.sh: why, there).
# A write's time runs to the file's close (tools/lib/cluster_fio.sh), and fio does not lay out
# the files first (--fallocate=none), so creating the chunks is inside it too. N-N write is run
# ROUNDS times (the median is the result), then once with fsync at the end, which also writes
# every chunk to the backing disk; the disk's own rate is measured for that row. After the table,
# N-N write again without write-behind, with jumbo frames (MTU 9000; everything else runs at 1500),
# with links that do not limit (what the cores allow), and at a quarter of RATE; each twice in a
# row on a fresh cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results/cluster_fio.md}
nodes=${NODES:-4}
rate=${RATE:-1gbit}
size=${SIZE:-512}
runtime=${RUNTIME:-10}
files=${FILES:-2000}
rounds=${ROUNDS:-3}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /tmp/bb-bench-XXXXXX)
mnt=$work/mnt
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
source tools/lib/cluster_fio.sh
slice_bytes=$((size << 20))
seq_write=(--rw=write --bs=1M --size="${size}M" --fallocate=none)

# The backing disk that all emulated nodes share: its rate of direct writes, in MiB/s.
disk=$(dd if=/dev/zero of="$work/disk-test" bs=1M count=1024 oflag=direct 2>&1 |
       python3 -c 'import sys, re; t = sys.stdin.read(); print(round(int(re.search(r"^(\d+) bytes", t, re.M).group(1)) / float(re.search(r"copied, ([\d.]+) s", t).group(1)) / 2**20))')
rm -f "$work/disk-test"

"$bbctl" emulate up --nodes "$nodes" --link-rate "$rate" --root "$work/root" --mount "$mnt" >/dev/null
"$bbctl" exec --node 0 -- mkdir "$mnt/nn" "$mnt/md"
declare -A r
# The first N-N write runs as it comes, on memory this machine may not have backed yet; every
# later write first touches twice its data's size of memory (warm_memory).
warm=$((2 * nodes * size))
nn_write() {  # [fio args...]: N-N write anew (files removed, memory warmed) -> MiB/s
  "$bbctl" exec --node 0 -- sh -c "rm -f $mnt/nn/*"
  warm_memory "$warm"
  on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" "${seq_write[@]}" "$@"
}
r[nn_cold]=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" "${seq_write[@]}")
runs=()
for i in $(seq "$rounds"); do runs+=("$(nn_write)"); done
r[nn_write]=$(IFS=/; echo "${runs[*]}")
r[nn_fsync]=$(nn_write --end_fsync=1)
r[nn_read]=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" --rw=read --bs=1M --size="${size}M")
warm_memory "$warm"
r[n1_write]=$(on_all_nodes bw 0 --name=n1 --filename="$mnt/shared" "${seq_write[@]}" --offset=@O)
r[n1_read]=$(on_all_nodes bw 0 --name=n1 --filename="$mnt/shared" --rw=read --bs=1M --offset=@O --size="${size}M")
r[rand_write]=$(on_all_nodes iops 0 --name=rnd --filename="$mnt/nn/r@N" --rw=randwrite --bs=4k --size=64M --time_based --runtime="$runtime")
r[rand_read]=$(on_all_nodes iops 0 --name=rnd --filename="$mnt/nn/r@N" --rw=randread --bs=4k --size=64M --time_based --runtime="$runtime")
md=(--directory="$mnt/md" --filesize=4k --nrfiles="$files" --openfiles=1)
r[create]=$(on_all_nodes iops 0 --name=md@N "${md[@]}" --ioengine=filecreate --fallocate=none --create_on_open=1)
r[stat]=$(on_all_nodes iops 0 --name=md@N "${md[@]}" --ioengine=filestat)
r[delete]=$(on_all_nodes iops 0 --name=md@N "${md[@]}" --ioengine=filedelete)
"$bbctl" emulate down >/dev/null

# N-N write once more on clusters set up otherwise, to show what bounds it:
#   without write-behind (every write waits for its chunks), at the same rate;
#   jumbo frames: fewer packets through the shapers, bridge and TCP for the same bytes;
#   links without a useful limit (40 Gbit/s): what this machine's cores allow;
#   a quarter of the rate: where the links are the tighter bound.
nn_write_on() {  # RATE MTU [bbd args...] -> "FIRST/SECOND": aggregate MiB/s of two runs in a row
  local link=$1 mtu=$2 first second; shift 2
  "$bbctl" emulate up --nodes "$nodes" --link-rate "$link" --mtu "$mtu" --root "$work/root-$link-$mtu-$#" --mount "$mnt" -- "$@" >/dev/null
  "$bbctl" exec --node 0 -- mkdir "$mnt/nn"
  first=$(nn_write)
  second=$(nn_write)
  "$bbctl" emulate down >/dev/null
  echo "$first/$second"
}
slow_rate=$(python3 -c "import sys; r=sys.argv[1]; print(f'{float(r[:-4])*250:g}' + ('mbit' if r.endswith('gbit') else 'kbit'))" "$rate")
r[nn_sync]=$(nn_write_on "$rate" 1500 --write-behind 0)
r[nn_jumbo]=$(nn_write_on "$rate" 9000)
r[nn_unshaped]=$(nn_write_on 40gbit 1500)
r[nn_slow]=$(nn_write_on "$slow_rate" 1500)

python3 - "$out" "$nodes" "$rate" "$size" "$runtime" "$files" "$disk" "$warm" "${r[nn_cold]}" \
  "${r[nn_write]}" "${r[nn_fsync]}" "${r[nn_read]}" "${r[n1_write]}" "${r[n1_read]}" "${r[rand_write]}" \
  "${r[rand_read]}" "${r[create]}" "${r[stat]}" "${r[delete]}" "${r[nn_sync]}" "${r[nn_jumbo]}" "${r[nn_unshaped]}" \
  "$slow_rate" "${r[nn_slow]}" <<'PY'
import sys, datetime, platform, statistics
out, nodes, rate, size, runtime, files, disk, warm, nn_cold, *v = sys.argv[1:]
nodes, size, disk, nn_cold = int(nodes), int(size), float(disk), float(nn_cold)
(nn_write, nn_fsync, nn_read, n1_write, n1_read, rand_write, rand_read, create, stat, delete,
 nn_sync, nn_jumbo, nn_unshaped, slow_rate, nn_slow) = v
sys.path.insert(0, "bench/lib")
from links import link_bound
bound = link_bound(rate, nodes)
runs = lambda text: [float(x) for x in text.split("/")]
nn_runs = runs(nn_write)
nn_median = statistics.median(nn_runs)
# With fsync at the end, every byte also goes to the disk the emulated nodes share. The kernel
# writes dirty pages back while the write goes on, so links and disk overlap: the bound is the
# slower of the two. Had they taken turns (nothing written back before the fsync), the two
# rates in a row.
fsync_bound = min(bound, disk)
fsync_in_turn = 1 / (1 / bound + 1 / disk)
both = lambda r, b: f"{r[0]:.0f} / {r[1]:.0f} | {b:.0f} | {r[0] / b:.2f} / {r[1] / b:.2f}"
with open(out, "w") as f:
    f.write(f"# {nodes}-node emulated cluster, {rate} links (fio)\n\n")
    f.write(f"Recorded {datetime.date.today()} on one 2-core Debian 12 machine (all {nodes} daemons and all fio processes share its 2 cores), kernel {platform.release()}.\n")
    f.write(f"Command: `bench/cluster_fio.sh` (NODES={nodes}, RATE={rate}, SIZE={size} MiB per node, RUNTIME={runtime}s, FILES={files} per node), as root. Layout: distributed hashing (mode 3), 512 KiB chunks, UCX over TCP only.\n")
    f.write("One fio job per node, all at once; figures are all nodes' bytes (or operations) over the slowest node's time, as IOR counts. "
            "A node's time for a sequential write runs from its first I/O to the close of its file (fio's own run time ends with the last write, before the close waits for writes behind); reads keep fio's run time. "
            "Files are not laid out before writing (`--fallocate=none`). N-1 = every node writes/reads its own slice of one shared file.\n\n")
    f.write(f"Link bound for sequential work: {nodes} x {rate} / (({nodes}-1)/{nodes}) = {bound:.0f} MiB/s.\n\n")
    f.write("| workload | result | unit | bound | of the bound |\n|---|---|---|---|---|\n")
    f.write(f"| N-N write, 1 MiB (median of {len(nn_runs)}: {' / '.join(f'{x:.0f}' for x in nn_runs)}) | {nn_median:.0f} | MiB/s | {bound:.0f} links | {nn_median / bound:.2f} |\n")
    f.write(f"| N-N write, 1 MiB, first run, memory not warmed | {nn_cold:.0f} | MiB/s | {bound:.0f} links | {nn_cold / bound:.2f} |\n")
    f.write(f"| N-N write, 1 MiB, fsync at the end | {float(nn_fsync):.0f} | MiB/s | {fsync_bound:.0f} min(links, disk) | {float(nn_fsync) / fsync_bound:.2f} |\n")
    for name, val in [("N-N read, 1 MiB", nn_read), ("N-1 write, 1 MiB", n1_write), ("N-1 read, 1 MiB", n1_read)]:
        f.write(f"| {name} | {float(val):.0f} | MiB/s | {bound:.0f} links | {float(val) / bound:.2f} |\n")
    for name, val in [("random write 4 KiB", rand_write), ("random read 4 KiB", rand_read), ("file create", create),
                      ("file stat", stat), ("file delete", delete)]:
        f.write(f"| {name} | {float(val):.0f} | IOPS | — | — |\n")
    f.write("\nTarget for N-N write: at least 0.8 of the link bound.\n\n")
    f.write(f"Memory: before every write but the first, the script touches {warm} MiB of memory once (a file in /dev/shm, removed at once). "
            "This machine is a VM whose host takes freed memory back (free page reporting), and the first touch of such memory is several times "
            "slower than of memory in use (`dd if=/dev/zero of=/dev/shm/x bs=1M count=4096` twice, removing the file in between: 359 MB/s, then 2.4 GB/s). "
            "A write that grows the page cache of the backing stores into such memory measures the host; the first run shows what that costs.\n\n")
    f.write(f"fsync writes every chunk to the backing disk, and the {nodes} emulated nodes share one: {disk:.0f} MiB/s of direct writes "
            "(`dd oflag=direct`, measured by this script). The kernel writes dirty pages back while the write goes on, so "
            f"links and disk work at the same time and that row's bound is the slower of them, {fsync_bound:.0f} MiB/s. Had they "
            f"taken turns (nothing written back before the fsync), 1 / (1 / {bound:.0f} + 1 / {disk:.0f}) = {fsync_in_turn:.0f} MiB/s. "
            "On a real cluster every node has a disk of its own.\n\n")
    f.write("N-N write again, on clusters set up otherwise (same SIZE, one job per node), each run twice in a row on a "
            "fresh cluster (the files removed in between): the first run also pays for the fresh daemons and stores.\n\n")
    f.write("| cluster | N-N write, MiB/s, 1st / 2nd run | link bound, MiB/s | of the link bound |\n|---|---|---|---|\n")
    f.write(f"| {rate}, as above (write-behind 64 MiB, the default; median) | {nn_median:.0f} | {bound:.0f} | {nn_median / bound:.2f} |\n")
    f.write(f"| {rate}, write_behind 0 (every write waits for its chunks) | {both(runs(nn_sync), bound)} |\n")
    f.write(f"| {rate}, jumbo frames (`bbctl emulate up --mtu 9000`; the rest uses 1500) | {both(runs(nn_jumbo), bound)} |\n")
    f.write(f"| 40gbit: links that do not limit, measured against the {rate} bound | {both(runs(nn_unshaped), bound)} |\n")
    f.write(f"| {slow_rate} | {both(runs(nn_slow), link_bound(slow_rate, nodes))} |\n")
print(open(out).read())
PY
