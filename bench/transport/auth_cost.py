#!/usr/bin/env python3
"""What the cluster key costs: connection set-up and request round trip of the transport with
authentication (this tree: the gate's key handshake, session tokens in every message) and
without (a build of the commit before it, where callers connected straight to UCX's connection
manager), side by side in one run on loopback, UCX over TCP.

  bench/transport/auth_cost.py OLD_BIN_DIR NEW_BIN_DIR [--rounds R] [--out bench/results/auth.md]

Each round starts a server of each build and runs its client: 30 connections set up one after
another (a fresh client transport's first call: for the new build the TCP connection to the
gate, the handshake, the UCX endpoint to the worker address and the first round trip), then
20,000 empty round trips and 500 requests of 512 KiB. The builds alternate; medians and ranges
over the rounds.
"""
import argparse, datetime, os, platform, statistics, subprocess, sys, tempfile, time

def run(bin_dir, key, port):
    env = dict(os.environ, UCX_TLS="tcp")
    server = subprocess.Popen([f"{bin_dir}/bb-transport-bench", "--serve", f"127.0.0.1:{port}", "--key-file", key],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        out = subprocess.run([f"{bin_dir}/bb-transport-bench", "--connect", f"127.0.0.1:{port}", "--key-file", key,
                              "--iterations", "20000", "--messages", "500", "--connects", "30"],
                             env=env, capture_output=True, text=True, timeout=300, check=True).stdout.split()
    finally:
        server.terminate()
        server.wait()
    v = {out[i]: out[i + 1:i + 4] for i in range(len(out)) if out[i].endswith(("_us", "_MBps"))}
    return {"rtt_median_us": float(v["rtt_us"][1]), "bw_MBps": float(v["bw_MBps"][0]),
            "connect_median_us": float(v["connect_us"][0])}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old"); ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="bench/results/auth.md")
    a = ap.parse_args()
    key = os.path.join(tempfile.mkdtemp(prefix="bb-auth-"), "cluster.key")
    subprocess.run([f"{a.new}/bbctl", "key", "new", key], check=True)
    res = {"without": [], "with": []}
    for r in range(a.rounds):
        for name, bin_dir in (("without", a.old), ("with", a.new)) if r % 2 == 0 else (("with", a.new), ("without", a.old)):
            res[name].append(run(bin_dir, key, 7300 + r))
            print(name, res[name][-1], flush=True)
    def cell(name, field):
        xs = [x[field] for x in res[name]]
        return f"{statistics.median(xs):,.1f} [{min(xs):,.1f}–{max(xs):,.1f}]"
    with open(a.out, "w") as f:
        f.write("# What the cluster key costs\n\n")
        f.write(f"Recorded {datetime.date.today()} with `bench/transport/auth_cost.py OLD NEW --rounds {a.rounds}` on a 2-core "
                f"Debian 12 machine, kernel {platform.release()}, UCX 1.13 (Debian), UCX_TLS=tcp, loopback. "
                "OLD: a build of the commit before the gate (callers connect to UCX's connection manager, no key); "
                "NEW: this tree. Median [range] over the rounds, the builds alternating.\n\n")
        f.write("| | without the key (UCX connection manager) | with the key (gate handshake, session tokens) |\n|---|---|---|\n")
        for field, label in (("connect_median_us", "connection set-up, µs (median of 30 per round)"),
                             ("rtt_median_us", "empty round trip, µs (median of 20,000)"),
                             ("bw_MBps", "512 KiB requests, MB/s (8 threads)")):
            f.write(f"| {label} | {cell('without', field)} | {cell('with', field)} |\n")
    print(open(a.out).read())

if __name__ == "__main__":
    main()
