#!/usr/bin/python3
"""Two builds side by side on the same workload: random 4 KiB (fio randrw, 50 % reads, psync,
8 s, a 32 MiB file per node) on a fresh 4-node emulated cluster at 1 Gbit/s per round and build,
the builds alternating which goes first. Needs root and fio; each build's bin/ must hold bbctl
and bbd.

  bench/phases/ab_random4k.py BEFORE_BIN AFTER_BIN [--rounds 6] [--out FILE.md]

Prints (and with --out writes) each round's aggregate IOPS, the medians and ranges, and the
paired after/before ratios.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the harness package
from harness import report, stats  # noqa: E402


def one_round(bin_dir, work):
    root, mnt = os.path.join(work, "root"), os.path.join(work, "mnt")
    shutil.rmtree(root, ignore_errors=True)
    bbctl = os.path.join(bin_dir, "bbctl")
    p = subprocess.run([bbctl, "emulate", "up", "--nodes", "4", "--link-rate", "1gbit", "--root", root, "--mount", mnt],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{bbctl} emulate up: {p.stderr.strip()}")
    try:
        outs = [os.path.join(work, f"fio.{i}.json") for i in range(4)]
        procs = [subprocess.Popen([bbctl, "exec", "--node", str(i), "--", "fio", "--name=r", f"--filename={mnt}/f.{i}",
                                   "--rw=randrw", "--rwmixread=50", "--bs=4k", "--size=32m", "--time_based",
                                   "--runtime=8", "--ioengine=psync", "--output-format=json", f"--output={outs[i]}"],
                                  stdout=subprocess.DEVNULL) for i in range(4)]
        for pr in procs:
            pr.wait()
        iops = 0.0
        for o in outs:
            with open(o) as f:
                j = json.load(f)["jobs"][0]
            iops += j["read"]["iops"] + j["write"]["iops"]
        return iops
    finally:
        subprocess.run([bbctl, "emulate", "down"], capture_output=True)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--out")
    a = p.parse_args(argv)
    work = tempfile.mkdtemp(prefix="bb-ab-")
    res = {"before": [], "after": []}
    try:
        for r in range(a.rounds):
            for v in (["before", "after"] if r % 2 == 0 else ["after", "before"]):
                res[v].append(one_round(getattr(a, v), work))
            print(f"round {r + 1}: before {res['before'][-1]:.0f}, after {res['after'][-1]:.0f} IOPS", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratios = sorted(x / y for x, y in zip(res["after"], res["before"]))
    lines = ["# Random 4 KiB, two builds side by side", "",
             f"Command: `bench/phases/ab_random4k.py {' '.join(argv)}`. Machine: {report.machine()}.", "",
             "| build | IOPS per round | median [min–max] |", "|---|---|---|"]
    for v in ("before", "after"):
        s = stats.spread(res[v])
        lines.append(f"| {v} | {', '.join(f'{x:.0f}' for x in res[v])} | {s['median']:.0f} [{s['min']:.0f}–{s['max']:.0f}] |")
    s = stats.spread(ratios)
    lines += ["", f"Paired after/before: median {s['median']:.3f} [{s['min']:.3f}–{s['max']:.3f}] "
              f"({', '.join(f'{x:.3f}' for x in ratios)})."]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
