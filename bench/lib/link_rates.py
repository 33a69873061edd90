#!/usr/bin/env python3
"""Samples the emulated links: every INTERVAL seconds, for SECONDS, each node's bytes out and in
(MiB/s, Ethernet frames as the shapers count them), read from the host ends of the veth pairs
(bbv<i>: its rx is node i's egress, its tx node i's ingress). Prints one line per sample.

    link_rates.py NODES SECONDS [INTERVAL]
"""
import sys
import time


def counters(nodes):
    def read(i, what):
        with open(f"/sys/class/net/bbv{i}/statistics/{what}_bytes") as f:
            return int(f.read())
    return [(read(i, "rx"), read(i, "tx")) for i in range(nodes)]


def main():
    nodes, seconds = int(sys.argv[1]), float(sys.argv[2])
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
    prev, start = counters(nodes), time.time()
    while time.time() - start < seconds:
        time.sleep(interval)
        cur = counters(nodes)
        rates = [f"{(c[0] - p[0]) / interval / 2**20:.0f}/{(c[1] - p[1]) / interval / 2**20:.0f}"
                 for c, p in zip(cur, prev)]
        print(f"{time.time() - start:.1f} " + " ".join(rates), flush=True)
        prev = cur


if __name__ == "__main__":
    main()
