#!/usr/bin/env bash
# The transport against UCX itself, same transport (TCP over loopback), same run:
# round trip of an empty request vs ucx_perftest -t ucp_am_lat (one-way latency x 2), and
# bandwidth of 512 KiB requests vs ucx_perftest -t ucp_am_bw.
#   bench/transport/transport_vs_ucx.sh [RESULT.md]     (default bench/results/transport_vs_ucx.md)
# Environment: ROUNDS (15). Each round runs ucx_perftest and the transport one after the other;
# the table gives the median of the rounds for each, and lists every round. On a shared 2-core
# guest single rounds scatter by 2x in bandwidth (ucx_perftest's own too), and 5 rounds gave
# medians from 0.64x to 0.86x within two days; hence 15.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-bench/results/transport_vs_ucx.md}
rounds=${ROUNDS:-15}
bench=$PWD/build/bin/bb-transport-bench
[ -x "$bench" ] || { echo "build first: tools/build.sh" >&2; exit 1; }
command -v ucx_perftest >/dev/null || { echo "ucx_perftest is missing (Debian package ucx-utils)" >&2; exit 1; }
export UCX_TLS=tcp
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
port=13500

perftest() {  # test size iterations -> the "Final:" line
  port=$((port + 1))
  ucx_perftest -p "$port" >/dev/null 2>&1 & pids+=($!)
  sleep 1
  ucx_perftest 127.0.0.1 -p "$port" -t "$1" -s "$2" -n "$3" 2>/dev/null | grep '^Final:'
}

ours() {  # [--inline] -> "rtt_us MEAN MEDIAN bw_MBps BW rtt_p90_p99_us P90 P99"
  port=$((port + 1))
  "$bench" --serve "127.0.0.1:$port" "$@" & local server=$!
  pids+=($server)
  sleep 1
  "$bench" --connect "127.0.0.1:$port" --iterations 20000 --messages 4000 --size 524288 --threads 8
  kill "$server"
  wait "$server" 2>/dev/null || true
}

runs=$(mktemp)
for r in $(seq "$rounds"); do
  lat=$(perftest ucp_am_lat 8 20000 | awk '{print $4}')          # average one-way, usec
  bw=$(perftest ucp_am_bw 524288 4000 | awk '{print $6}')         # average MB/s
  read -r _ rtt rtt_med _ ours_bw _ rtt_p90 rtt_p99 < <(ours)
  # The same with the server answering on its progress thread (what a daemon does for a lookup).
  read -r _ irtt irtt_med _ _ _ irtt_p90 irtt_p99 < <(ours --inline)
  echo "$r $lat $bw $rtt $rtt_med $rtt_p90 $rtt_p99 $ours_bw $irtt $irtt_med $irtt_p90 $irtt_p99" | tee -a "$runs"
done

python3 - "$out" "$runs" <<'PY'
import sys, datetime, platform, statistics
out, runs = sys.argv[1], sys.argv[2]
rows = [list(map(float, l.split())) for l in open(runs) if l.strip()]
col = lambda i: statistics.median(r[i] for r in rows)
ref_rtt, ref_bw = 2 * col(1), col(2)
rtt, rtt_med, rtt_p90, rtt_p99, bw = col(3), col(4), col(5), col(6), col(7)
irtt, irtt_med, irtt_p90, irtt_p99 = col(8), col(9), col(10), col(11)
with open(out, "w") as f:
    f.write("# Transport vs UCX (ucx_perftest), TCP over loopback\n\n")
    f.write(f"Recorded {datetime.date.today()} on a 2-core Debian 12 machine, kernel {platform.release()}, UCX 1.13 (Debian), UCX_TLS=tcp.\n")
    f.write(f"Command: `bench/transport/transport_vs_ucx.sh` ({len(rows)} rounds; each figure is the median of the rounds). "
            "ucx_perftest reports one-way latency; its round trip is taken as twice that. Both sides poll: ucx_perftest "
            "busy-polls, the transport polls for `poll_spin` (50 µs, its default) before it sleeps.\n")
    f.write("The transport's round trip is the mean of 20,000 empty requests, one at a time, answered by a handler thread "
            "(what most RPCs pay), and answered on the server's progress thread (what a metadata read pays, `run_inline`). "
            "Its bandwidth is 4,000 requests of 512 KiB from 8 threads.\n\n")
    f.write("| measure | ucx_perftest | transport | ratio | target | met |\n|---|---|---|---|---|---|\n")
    for name, v, med, p90, p99 in (("handler thread", rtt, rtt_med, rtt_p90, rtt_p99),
                                   ("answered on the progress thread", irtt, irtt_med, irtt_p90, irtt_p99)):
        f.write(f"| round trip, small message, {name} (µs) | {ref_rtt:.1f} | {v:.1f} (median {med:.1f}, p90 {p90:.1f}, p99 {p99:.1f}) "
                f"| {v/ref_rtt:.2f}× | ≤ 1.5× | {'yes' if v <= 1.5*ref_rtt else 'no'} |\n")
    f.write(f"| bandwidth, 512 KiB messages (MB/s) | {ref_bw:.0f} | {bw:.0f} | {bw/ref_bw:.2f}× | ≥ 0.8× | {'yes' if bw >= 0.8*ref_bw else 'no'} |\n")
    per_round = lambda num, den: statistics.median(num(r) / den(r) for r in rows)
    f.write(f"\nThe same ratios taken round by round (each round's transport figure over the same round's "
            f"ucx_perftest figure), median of the rounds: round trip {per_round(lambda r: r[3], lambda r: 2 * r[1]):.2f}× "
            f"(handler thread), {per_round(lambda r: r[8], lambda r: 2 * r[1]):.2f}× (progress thread); "
            f"bandwidth {per_round(lambda r: r[7], lambda r: r[2]):.2f}×.\n")
    f.write("\nEvery round (µs, MB/s):\n\n")
    f.write("| round | perftest RTT | perftest BW | RTT handler (mean / median / p90 / p99) | BW | RTT inline (mean / median / p90 / p99) |\n|---|---|---|---|---|---|\n")
    for r in rows:
        f.write(f"| {int(r[0])} | {2*r[1]:.1f} | {r[2]:.0f} | {r[3]:.1f} / {r[4]:.1f} / {r[5]:.1f} / {r[6]:.1f} | {r[7]:.0f} | "
                f"{r[8]:.1f} / {r[9]:.1f} / {r[10]:.1f} / {r[11]:.1f} |\n")
print(open(out).read())
PY
rm -f "$runs"
