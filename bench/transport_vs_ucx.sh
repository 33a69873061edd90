#!/usr/bin/env bash
# The transport against UCX itself, same transport (TCP over loopback), same run:
# round trip of an empty request vs ucx_perftest -t ucp_am_lat (one-way latency x 2), and
# bandwidth of 512 KiB requests vs ucx_perftest -t ucp_am_bw.
#   bench/transport_vs_ucx.sh [RESULT.md]     (default bench/results/transport_vs_ucx.md)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/results/transport_vs_ucx.md}
bench=$PWD/build/bin/bb-transport-bench
[ -x "$bench" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
command -v ucx_perftest >/dev/null || { echo "ucx_perftest is missing (Debian package ucx-utils)" >&2; exit 1; }
export UCX_TLS=tcp
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

perftest() {  # port test size iterations -> the "Final:" line
  ucx_perftest -p "$1" >/dev/null 2>&1 & pids+=($!)
  sleep 1
  ucx_perftest 127.0.0.1 -p "$1" -t "$2" -s "$3" -n "$4" 2>/dev/null | grep '^Final:'
}
lat=$(perftest 13500 ucp_am_lat 8 20000 | awk '{print $4}')          # average one-way, usec
bw=$(perftest 13501 ucp_am_bw 524288 2000 | awk '{print $6}')        # average MB/s

"$bench" --serve 127.0.0.1:13502 & pids+=($!)
sleep 1
read -r _ rtt rtt_med _ ours_bw < <("$bench" --connect 127.0.0.1:13502 --iterations 20000 --size 524288 --threads 8)
# The same with the server answering on its progress thread (what a daemon does for a lookup).
"$bench" --serve 127.0.0.1:13503 --inline & pids+=($!)
sleep 1
read -r _ irtt irtt_med _ _ < <("$bench" --connect 127.0.0.1:13503 --iterations 20000 --size 524288 --threads 8)

python3 - "$out" "$lat" "$bw" "$rtt" "$rtt_med" "$ours_bw" "$irtt" "$irtt_med" <<'PY'
import sys, datetime, platform
out, lat, bw, rtt, rtt_med, ours_bw, irtt, irtt_med = sys.argv[1], *map(float, sys.argv[2:])
ref_rtt = 2 * lat
with open(out, "w") as f:
    f.write("# Transport vs UCX (ucx_perftest), TCP over loopback\n\n")
    f.write(f"Recorded {datetime.date.today()} on a 2-core Debian 12 machine, kernel {platform.release()}, UCX 1.13 (Debian), UCX_TLS=tcp.\n")
    f.write("Command: `bench/transport_vs_ucx.sh`. ucx_perftest reports one-way latency; its round trip is taken as twice that.\n")
    f.write("The transport's round trip is an empty request answered by a handler thread (what most RPCs pay), and answered on the server's progress thread (what a metadata read pays, `run_inline`); its bandwidth is 2,000 requests of 512 KiB from 8 threads.\n\n")
    f.write("| measure | ucx_perftest | transport | ratio | target | met |\n|---|---|---|---|---|---|\n")
    f.write(f"| round trip, small message, handler thread (µs) | {ref_rtt:.1f} | {rtt:.1f} (median {rtt_med:.1f}) | {rtt/ref_rtt:.2f}× | ≤ 1.5× | {'yes' if rtt <= 1.5*ref_rtt else 'no'} |\n")
    f.write(f"| round trip, small message, answered on the progress thread (µs) | {ref_rtt:.1f} | {irtt:.1f} (median {irtt_med:.1f}) | {irtt/ref_rtt:.2f}× | ≤ 1.5× | {'yes' if irtt <= 1.5*ref_rtt else 'no'} |\n")
    f.write(f"| bandwidth, 512 KiB messages (MB/s) | {bw:.0f} | {ours_bw:.0f} | {ours_bw/bw:.2f}× | ≥ 0.8× | {'yes' if ours_bw >= 0.8*bw else 'no'} |\n")
print(open(out).read())
PY
