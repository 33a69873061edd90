#!/usr/bin/env bash
# What the emulated cluster's links carry with plain TCP and nothing else: every node sends SIZE
# MiB to every other node at once over sockets (bench/lib/tcp_all_to_all.py, run in each node's
# network namespace), while bench/lib/link_rates.py samples the links every 200 ms. This is the
# ceiling the file system's N-N write meets on the same links (bench/cluster_fio.sh, now bench/scenarios/cluster_fio.yaml): with
# SIZE = (per-node data) / NODES each node moves what an N-N write of NODES x SIZE per node
# moves across its link.
#   bench/transport/link_ceiling.sh [RESULT.md]     (root; default bench/results/link_ceiling.md)
# Environment: NODES (4), RATE (1gbit), SIZE (MiB from each node to each other node, 128).
# Uses the emulated cluster's names (tools/bbctl/emulator/emulate.cc): namespace bbnode<i>, address
# 198.18.0.<i+1>, host end of its link bbv<i>.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench/results/link_ceiling.md}
nodes=${NODES:-4}
rate=${RATE:-1gbit}
size=${SIZE:-128}
bbctl=$PWD/build/bin/bbctl
[ -x "$bbctl" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
work=$(mktemp -d /tmp/bb-link-XXXXXX)
trap '"$bbctl" emulate down >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
"$bbctl" emulate up --nodes "$nodes" --link-rate "$rate" --root "$work/root" --mount "$work/mnt" >/dev/null

addrs=()
for i in $(seq 0 $((nodes - 1))); do addrs+=("198.18.$((i / 250)).$((i % 250 + 1))"); done
start=$(python3 -c 'import time; print(time.time() + 3)')
python3 bench/lib/link_rates.py "$nodes" 12 > "$work/rates" &
sampler=$!
pids=()
for i in $(seq 0 $((nodes - 1))); do
  ip netns exec "bbnode$i" python3 bench/lib/tcp_all_to_all.py "$i" "$size" "$start" "${addrs[@]}" > "$work/node$i" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
wait "$sampler"

python3 - "$out" "$nodes" "$rate" "$size" "$work" <<'PY'
import datetime, platform, statistics, sys
out, nodes, rate, size, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
seconds = [float(open(f"{work}/node{i}").read().split()[1]) for i in range(nodes)]
sys.path.insert(0, "bench/lib")
from links import link_bound, rate_mib
link = rate_mib(rate)
bound = link_bound(rate, nodes)
# Each node moved (nodes - 1) x size out and in: what an N-N write of nodes x size MiB per node
# moves across its link. As an aggregate against the N-N bound of bench/cluster_fio.sh (now the cluster_fio scenario):
equivalent = nodes * nodes * size / max(seconds)
rows = [line.split() for line in open(f"{work}/rates") if line.strip()]
busy = [r for r in rows if all(float(x.split("/")[0]) > 0 for x in r[1:])]
values = [float(v) for r in busy for x in r[1:] for v in x.split("/")]
with open(out, "w") as f:
    f.write(f"# Plain TCP on the emulated links, all to all ({nodes} nodes, {rate})\n\n")
    f.write(f"Recorded {datetime.date.today()} on a 2-core Debian 12 machine, kernel {platform.release()}.\n")
    f.write(f"Command: `bench/transport/link_ceiling.sh` (NODES={nodes}, RATE={rate}, SIZE={size}), as root. Every node sends "
            f"{size} MiB to each other node at once over plain sockets (1 MiB sendall calls) and receives as much.\n\n")
    f.write(f"| measure | value |\n|---|---|\n")
    f.write(f"| time per node, s | {' / '.join(f'{s:.2f}' for s in seconds)} |\n")
    f.write(f"| as an N-N write of {nodes * size} MiB per node, MiB/s | {equivalent:.0f} |\n")
    f.write(f"| of the link bound ({bound:.0f} MiB/s) | {equivalent / bound:.2f} |\n")
    f.write(f"| per link direction while all send, MiB/s of frames (link {link:.1f}): median / 10th percentile | "
            f"{statistics.median(values):.0f} / {statistics.quantiles(values, n=10)[0]:.0f} |\n\n")
    f.write("The rate counts Ethernet frames, so the most TCP payload a 1,500-byte frame carries is 1,448 of its "
            "1,514 bytes (0.956).\n\nEvery 200 ms, per node: MiB/s out / in.\n\n```\n")
    f.writelines(" ".join(r) + "\n" for r in rows)
    f.write("```\n")
print(open(out).read())
PY
