#!/usr/bin/env python3
"""The data path on the emulated cluster: IO500's ior-easy and ior-hard writes, each run on a fresh
4-node cluster, bbfs beside libfuse's passthrough_ll, at two link rates, and optionally an earlier
build beside this one.

  bench/phases/data_path.py BUILD_BIN_DIR [--before OTHER_BUILD_BIN_DIR] [--rounds R] [--out RESULT.md]   (root)

Each run: `bbctl emulate up --nodes 4 --link-rate RATE`, a workspace in the variant's mode (or
passthrough_ll over a folder of each node), then on every node at once 2 MPI ranks of
ior-easy (`-F -t 1m -b 64m -k -e`: a file per rank, fsync at close) or ior-hard (`-t 47008 -b 47008
-s SEGMENTS -k -e`: one file per node, interleaved 47,008-byte records), and the cluster goes down
again, so no run inherits another's page cache or writeback. Figures: the sum over nodes of IOR's
write MiB/s; the share of the 2 cores busy during the phase (/proc/stat); the daemons' CPU time
per MiB; calls to other nodes per MiB (`bbctl stats`). The link bound of a write that sends 3/4 of
every node's data to other nodes is 4 x RATE / 0.75 (mode 3); variants run interleaved, rotated
per round; the table gives the median over rounds [range]. ior (github.com/hpc/ior) and mpirun must
be on PATH.
"""
import argparse
import datetime
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import md_scaling as md  # noqa: E402  (the emulated cluster, passthrough_ll, IOR's output)


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, idle


def run(a, bbctl, pt_bin, variant, phase):
    label, bin_dir, mode, rate = variant
    bbctl = os.path.abspath(os.path.join(bin_dir, "bbctl"))
    with tempfile.TemporaryDirectory(prefix="bb-dp-", dir="/var/tmp") as work:
        c = md.Cluster(bbctl, work, 4, [], rate)
        try:
            base = c.passthrough(pt_bin) if mode == 0 else c.workspace(f"m{mode}", mode)
            pids = c.pt_pids if mode == 0 else c.bbd_pids()
            args = (["-F", "-t", "1m", "-b", "64m"] if phase == "ior-easy write" else
                    ["-t", "47008", "-b", "47008", "-s", str(a.segments)]) + ["-k", "-e"]
            for n in range(4):
                c.exec(n, ["mkdir", "-p", f"{base}/n{n}"], check=True)
            calls0 = c.stats()[1] if mode else 0
            cpu0, (b0, i0) = md.cpu_seconds(pids), busy_ticks()
            procs = [c.popen(n, ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", "ior", "-w"] + args +
                             ["-o", f"{base}/n{n}/f"]) for n in range(4)]
            outs = [p.communicate()[0] for p in procs]
            cpu1, (b1, i1) = md.cpu_seconds(pids), busy_ticks()
            calls1 = c.stats()[1] if mode else 0
            mib = sum(md.ior_bw(o, "Write") for o in outs)
            size = 8 * (64 if phase == "ior-easy write" else 47008 * a.segments / 2**20)
            return mib, (b1 - b0) / max(1, (b1 - b0) + (i1 - i0)), (cpu1 - cpu0) / size * 1e3, (calls1 - calls0) / size
        finally:
            c.down()


def med(xs, fmt="{:,.0f}"):
    m = statistics.median(xs)
    return f"{fmt.format(m)} [{fmt.format(min(xs))}–{fmt.format(max(xs))}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin")
    ap.add_argument("--before", help="an earlier build's bin folder, run beside this one in mode 3")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--segments", type=int, default=1000, help="ior-hard records per rank")
    ap.add_argument("--variants", help="only these (labels separated by ';', e.g. 'mode 3, 1gbit;mode 4, 1gbit')", default="")
    ap.add_argument("--phases", default="ior-easy write,ior-hard write")
    ap.add_argument("--out", default=f"{md.SRC}/bench/results/data_path.md")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("data_path: run as root (emulated nodes)")
    for t in ("ior", "mpirun"):
        md.need(t)
    pt_bin = md.build_passthrough(os.path.join(os.path.dirname(os.path.abspath(a.bin)), "bench"))
    variants = [("passthrough_ll, 1gbit", a.bin, 0, "1gbit"), ("mode 3, 1gbit", a.bin, 3, "1gbit"),
                ("mode 4, 1gbit", a.bin, 4, "1gbit"), ("mode 3, 10gbit", a.bin, 3, "10gbit"),
                ("passthrough_ll, 10gbit", a.bin, 0, "10gbit")]
    if a.before:
        variants.insert(2, ("mode 3, 1gbit, before", a.before, 3, "1gbit"))
    if a.variants:
        variants = [v for v in variants if v[0] in a.variants.split(";")]
    phases = a.phases.split(",")
    res = {}
    for r in range(a.rounds):
        order = variants[r % len(variants):] + variants[:r % len(variants)]
        for phase in phases:
            for v in order:
                row = run(a, None, pt_bin, v, phase)
                res.setdefault((v[0], phase), []).append(row)
                print(f"round {r + 1} {v[0]:24s} {phase:15s} {row[0]:8.1f} MiB/s  busy {row[1]:.2f}  "
                      f"cpu {row[2]:.1f} ms/MiB  calls {row[3]:.2f}/MiB", flush=True)
    lines = ["# The data path: IO500 writes on 4 emulated nodes\n",
             f"Recorded {datetime.date.today()} on a 2-core machine with `bench/phases/data_path.py BUILD/bin "
             f"{' '.join('BEFORE/bin' if x == a.before else x for x in sys.argv[2:])}` (method in the script's "
             "header; BEFORE: an earlier build). Median over rounds [range]. Link bound of mode 3 (3/4 of each "
             "node's data to "
             "other nodes): 636 MiB/s at 1 Gbit/s, 6,357 MiB/s at 10 Gbit/s.\n"]
    for phase in phases:
        lines.append(f"## {phase}\n")
        lines.append("| variant | MiB/s | cores busy | daemon CPU ms per MiB | calls to other nodes per MiB |")
        lines.append("|---|---|---|---|---|")
        for v in variants:
            rows = res.get((v[0], phase), [])
            if not rows:
                continue
            lines.append(f"| {v[0]} | {med([x[0] for x in rows])} | {med([x[1] for x in rows], '{:.2f}')} | "
                         f"{med([x[2] for x in rows], '{:.1f}')} | "
                         f"{med([x[3] for x in rows], '{:.2f}') if v[2] else '—'} |")
        lines.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
