#!/usr/bin/env python3
"""Turns bench/modes.sh's CSV into the results table (Markdown) and a chart (PNG).

    modes_report.py CSV MD PNG NODES RATE SIZE RUNTIME FILES MPI_TOOLS

The chart shows every workload's result per mode relative to mode 3 (the default layout), so
that MiB/s, IOPS and operations/s share one axis; the table has the absolute figures.
"""
import csv
import datetime
import platform
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    src, md_path, png_path, nodes, rate, size, runtime, files, mpi = sys.argv[1:10]
    rows = list(csv.DictReader(open(src)))
    modes = ["1", "2", "3", "4"]
    names = {"1": "mode 1 node-local", "2": "mode 2 central meta", "3": "mode 3 hashed", "4": "mode 4 hybrid"}
    workloads, unit, val = [], {}, {}
    for r in rows:
        if r["mode"] not in modes:
            continue
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
        unit[r["workload"]] = r["unit"] if r["unit"] != "n/a" else unit.get(r["workload"], "")
        val[(r["mode"], r["workload"])] = float(r["value"]) if r["value"] else None
    cache = {(r["mode"], r["workload"]): float(r["value"]) for r in rows if r["mode"].startswith("cache-")}

    def get(m, w):
        return val.get((m, w))

    def ratio(a, b, w):
        x, y = get(a, w), get(b, w)
        return x / y if x is not None and y else None

    with open(md_path, "w") as f:
        f.write(f"# The four layout modes on a {nodes}-node emulated cluster, {rate} links\n\n")
        f.write(f"Recorded {datetime.date.today()} on one 2-core Debian 12 machine (all {nodes} daemons and all "
                f"clients share its 2 cores and its one disk), kernel {platform.release()}.\n")
        f.write(f"Command: `bench/modes.sh` as root{', with `ior`/`mdtest` built from github.com/hpc/ior on PATH' if mpi == '1' else ''} (NODES={nodes}, RATE={rate}, SIZE={size} MiB per node, "
                f"RUNTIME={runtime} s, FILES={files} per node and phase). UCX over TCP only, 512 KiB chunks; "
                "one workspace per mode (`configs/modes/mode<N>.yaml`, mode 2 with metadata_server_ratio 0.25), "
                "one client per node, all nodes at once. Figures are aggregates over the nodes, as IOR computes "
                "them: all bytes or operations / the slowest node's time (fio: `tools/lib/cluster_fio.sh`; "
                "metadata phases: `bench/lib/md_phase.py`, one system call per operation); fio's "
                "write times run to the close of the file. Page cache dropped before each mode, then twice "
                "the mode's data touched in memory once (`warm_memory`, tools/lib/cluster_fio.sh).\n\n")
        if mpi != "1":
            f.write("IOR and mdtest were not on PATH for this run, so only fio and the mdtest-style driver ran "
                    "(the script runs them too when `ior`, `mdtest` and `mpirun` are found).\n\n")
        f.write("| workload | unit | " + " | ".join(names[m] for m in modes) + " | best |\n")
        f.write("|---|---|" + "---|" * len(modes) + "---|\n")
        for w in workloads:
            cells, best, bestv = [], None, -1.0
            for m in modes:
                v = get(m, w)
                cells.append("n/a" if v is None else f"{v:.0f}")
                if v is not None and v > bestv:
                    best, bestv = m, v
            f.write(f"| {w} | {unit[w]} | " + " | ".join(cells) + f" | mode {best} |\n")
        f.write("\nn/a: mode 1 keeps each node's files private, so no node can read another node's file or "
                "share one (ENOENT by design), and mdtest cannot run there (its rank 0 makes the directory "
                "tree for every rank). In mode 1 the mdtest-B \"shared\" directory is a separate "
                "directory on each node.\n\n")
        f.write("## Expectations from the design\n\n")
        checks = [
            ("mode 1 >= 2x mode 3 on N-N write", ratio("1", "3", "IOR-A N-N write"), 2.0),
            ("mode 1 >= 2x mode 3 on independent creates (mdtest-A)", ratio("1", "3", "mdtest-A create"), 2.0),
            ("mode 4 >= 1.5x mode 3 on N-N write", ratio("4", "3", "IOR-A N-N write"), 1.5),
        ]
        for text, r, want in checks:
            got = "n/a" if r is None else f"{r:.2f}x"
            f.write(f"- {text}: measured {got} — {'met' if r is not None and r >= want else 'NOT met'}\n")
        if cache:
            f.write("\n## Kernel caching of node-private files (mode 1)\n\n")
            f.write("Same work with `private_cache_timeout` 60 s (default: the kernel keeps pages across opens "
                    "and caches entries and attributes) and 0 (as for shared files):\n\n")
            f.write("| workload | cache on | cache off | on / off |\n|---|---|---|---|\n")
            for w in sorted({k[1] for k in cache}):
                on, off = cache.get(("cache-on", w)), cache.get(("cache-off", w))
                f.write(f"| {w} | {on:.0f} | {off:.0f} | {on / off:.2f}x |\n")

    shown = [w for w in workloads if get("3", w)]
    fig, ax = plt.subplots(figsize=(13, 5.5))
    width = 0.2
    colors = {"1": "#4c72b0", "2": "#dd8452", "3": "#55a868", "4": "#c44e52"}
    for i, m in enumerate(modes):
        xs, ys = [], []
        for j, w in enumerate(shown):
            v = get(m, w)
            if v is not None:
                xs.append(j + (i - 1.5) * width)
                ys.append(v / get("3", w))
        ax.bar(xs, ys, width, label=names[m], color=colors[m])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(shown)))
    ax.set_xticklabels(shown, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("relative to mode 3, log scale (missing bar: n/a)")
    ax.set_title(f"Layout modes on {nodes} emulated nodes, {rate} links (absolute figures in modes.md)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    print(open(md_path).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
