#!/usr/bin/env bash
# fio on the 4-node emulated cluster (1 Gbit/s links both ways, UCX over TCP, layout mode 3):
# N-N and N-1 sequential write and read with 1 MiB blocks, random 4 KiB write and read, file
# create/stat/delete. For sequential work the links bound the rate: with N nodes, (N-1)/N of
# each node's data crosses its link, so the aggregate can reach N x link / ((N-1)/N).
#   bench/cluster_fio.sh [RESULT.md]      (root; default bench/results/cluster_fio.md)
# Environment: NODES (4), RATE (1gbit), SIZE (MiB per node, 256), RUNTIME (s, random I/O, 10),
# FILES (per node, 2000). After the table, N-N write again without write-behind, with links
# that do not limit (what the cores allow), and at a quarter of RATE; each twice in a row.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results/cluster_fio.md}
nodes=${NODES:-4}
rate=${RATE:-1gbit}
size=${SIZE:-256}
runtime=${RUNTIME:-10}
files=${FILES:-2000}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /tmp/bb-bench-XXXXXX)
mnt=$work/mnt
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
source tools/lib/cluster_fio.sh
slice_bytes=$((size << 20))

"$bbctl" emulate up --nodes "$nodes" --link-rate "$rate" --root "$work/root" --mount "$mnt" >/dev/null
"$bbctl" exec --node 0 -- mkdir "$mnt/nn" "$mnt/md"
declare -A r
r[nn_write]=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" --rw=write --bs=1M --size="${size}M" --end_fsync=1)
r[nn_read]=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" --rw=read --bs=1M --size="${size}M")
r[n1_write]=$(on_all_nodes bw 0 --name=n1 --filename="$mnt/shared" --rw=write --bs=1M --offset=@O --size="${size}M" --end_fsync=1)
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
#   links without a useful limit (40 Gbit/s): what this machine's cores allow;
#   a quarter of the rate: where the links are the tighter bound.
nn_write_on() {  # RATE [bbd args...] -> "FIRST/SECOND": aggregate MiB/s of two runs in a row
  local link=$1 first second; shift
  "$bbctl" emulate up --nodes "$nodes" --link-rate "$link" --root "$work/root-$link$#" --mount "$mnt" -- "$@" >/dev/null
  "$bbctl" exec --node 0 -- mkdir "$mnt/nn"
  first=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" --rw=write --bs=1M --size="${size}M" --end_fsync=1)
  "$bbctl" exec --node 0 -- sh -c "rm -f $mnt/nn/*"
  second=$(on_all_nodes bw 0 --name=nn --filename="$mnt/nn/f@N" --rw=write --bs=1M --size="${size}M" --end_fsync=1)
  "$bbctl" emulate down >/dev/null
  echo "$first/$second"
}
slow_rate=$(python3 -c "import sys; r=sys.argv[1]; print(f'{float(r[:-4])*250:g}' + ('mbit' if r.endswith('gbit') else 'kbit'))" "$rate")
r[nn_sync]=$(nn_write_on "$rate" --write-behind 0)
r[nn_unshaped]=$(nn_write_on 40gbit)
r[nn_slow]=$(nn_write_on "$slow_rate")

python3 - "$out" "$nodes" "$rate" "$size" "$runtime" "$files" \
  "${r[nn_write]}" "${r[nn_read]}" "${r[n1_write]}" "${r[n1_read]}" "${r[rand_write]}" "${r[rand_read]}" \
  "${r[create]}" "${r[stat]}" "${r[delete]}" "${r[nn_sync]}" "${r[nn_unshaped]}" "$slow_rate" "${r[nn_slow]}" <<'PY'
import sys, datetime, platform
out, nodes, rate, size, runtime, files, *v = sys.argv[1:]
nodes = int(nodes)
def link_bound(rate):
    rate_bytes = float(rate.rstrip("gbitmk")) * {"g": 1e9, "m": 1e6, "k": 1e3}[rate[-4]] / 8
    return nodes * rate_bytes / ((nodes - 1) / nodes) / 2**20 if nodes > 1 else float("inf")
bound = link_bound(rate)
runs = lambda text: [float(x) for x in text.split("/")]
nn_sync, nn_unshaped, slow_rate, nn_slow = runs(v[9]), runs(v[10]), v[11], runs(v[12])
both = lambda r, b: f"{r[0]:.0f} / {r[1]:.0f} | {b:.0f} | {r[0] / b:.2f} / {r[1] / b:.2f}"
names = ["N-N write, 1 MiB", "N-N read, 1 MiB", "N-1 write, 1 MiB", "N-1 read, 1 MiB",
         "random write 4 KiB", "random read 4 KiB", "file create", "file stat", "file delete"]
with open(out, "w") as f:
    f.write(f"# {nodes}-node emulated cluster, {rate} links (fio)\n\n")
    f.write(f"Recorded {datetime.date.today()} on one 2-core Debian 12 machine (all {nodes} daemons and all fio processes share its 2 cores), kernel {platform.release()}.\n")
    f.write(f"Command: `bench/cluster_fio.sh` (NODES={nodes}, RATE={rate}, SIZE={size} MiB per node, RUNTIME={runtime}s, FILES={files} per node), as root. Layout: distributed hashing (mode 3), 512 KiB chunks, UCX over TCP only.\n")
    f.write("One fio job per node, all at once; figures are all nodes' bytes (or operations) over the slowest node's run time, as IOR counts. N-1 = every node writes/reads its own slice of one shared file.\n\n")
    f.write(f"Link bound for sequential work: {nodes} x {rate} / (({nodes}-1)/{nodes}) = {bound:.0f} MiB/s.\n\n")
    f.write("| workload | result | unit | of the link bound |\n|---|---|---|---|\n")
    for i, name in enumerate(names):
        val = float(v[i])
        seq = i < 4
        f.write(f"| {name} | {val:.0f} | {'MiB/s' if seq else 'IOPS'} | {val / bound:.2f} |\n" if seq else f"| {name} | {val:.0f} | IOPS | — |\n")
    f.write("\nTarget for N-N write: at least 0.8 of the link bound.\n\n")
    f.write("N-N write again, on clusters set up otherwise (same SIZE, one job per node), each run twice in a row on a "
            "fresh cluster (the files removed in between): the first run also pays for the fresh daemons and stores.\n\n")
    f.write("| cluster | N-N write, MiB/s, 1st / 2nd run | link bound, MiB/s | of the link bound |\n|---|---|---|---|\n")
    f.write(f"| {rate}, as above (write-behind 64 MiB, the default; one run) | {float(v[0]):.0f} | {bound:.0f} | {float(v[0]) / bound:.2f} |\n")
    f.write(f"| {rate}, write_behind 0 (every write waits for its chunks) | {both(nn_sync, bound)} |\n")
    f.write(f"| 40gbit: links that do not limit, measured against the {rate} bound | {both(nn_unshaped, bound)} |\n")
    f.write(f"| {slow_rate} | {both(nn_slow, link_bound(slow_rate))} |\n")
print(open(out).read())
PY
