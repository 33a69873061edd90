#!/usr/bin/env python3
"""Writes bench/qos/qos.sh's results (Markdown), the per-job rates (CSV) and their chart (PNG).

    qos_report.py WORKDIR SECTIONS.md OUT.md OUT.csv OUT.png PAIRS
"""
import csv
import datetime
import os
import platform
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the charts
from plots.qos import ALGOS, JOBS, MAX_R, draw_rates  # noqa: E402  (bench/charts.py draws the same chart)


def main():
    work, sections, md_path, csv_path, png_path, pairs = sys.argv[1:7]
    rates = {}
    with open(csv_path, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["policy", "t", "job", "rate"])
        for a in ALGOS:
            rows = list(csv.DictReader(open(f"{work}/rates.{a}.csv")))
            rates[a] = [(float(r["t"]), r["job"], float(r["rate"])) for r in rows if r["job"] in JOBS]
            for t, job, r in rates[a]:
                w.writerow([a, t, job, round(r, 1)])

    with open(md_path, "w") as f:
        f.write("# QoS: stage overhead, throughput, control cycles and the policies on a real mount\n\n")
        f.write(f"Recorded {datetime.date.today()} on one 2-core Debian 12 machine, kernel {platform.release()}, "
                f"as root with `bench/qos/qos.sh` (PAIRS={pairs}). One `bbd` on a local directory (two side by side in section 1); the controller "
                "`bb-controller` on loopback.\n\n")
        f.write(open(sections).read())
        f.write("## 4. The four policies on a real mount\n\n")
        f.write(f"Max_R = {MAX_R} metadata ops/s; jobs A, B, C, D each ask for 2,500 ops/s (weights 4, 3, 2, 1 "
                "for the priority policy) and offer 2,500, 1,500, 500 and 150 system calls/s (`bb-replay`, 4 "
                "threads each, create/stat/open/rename/unlink mix; each call is one to three metadata requests "
                "to the file system); they join 10 s apart and all stop at 50 s. Rates are what the daemon's "
                "stage admitted per job (FUSE requests/s), sampled every second on the daemon's clock "
                "(`bench/qos/qos_sample.py`). Chart: `qos_rates.png`; every sample: `qos_rates.csv`.\n\n")
        f.write("| policy | A | B | C | D | total (30-50 s) | highest 1-s total | seconds above Max_R +2 % |\n")
        f.write("|---|---|---|---|---|---|---|---|\n")
        for a in ALGOS:
            per = {j: [r for t, jj, r in rates[a] if jj == j and 32 <= t <= 48] for j in JOBS}
            mean = {j: sum(v) / len(v) if v else 0 for j, v in per.items()}
            totals = {}
            for t, j, r in rates[a]:
                totals[round(t)] = totals.get(round(t), 0) + r
            highest = max(totals.values()) if totals else 0
            above = sum(1 for v in totals.values() if v > MAX_R * 1.02)
            f.write(f"| {a} | " + " | ".join(f"{mean[j]:.0f}" for j in JOBS) +
                    f" | {sum(mean.values()):.0f} | {highest:.0f} | {above} |\n")
        f.write("\nJob columns: mean admitted ops/s while all four jobs run (32-48 s).\n")

    draw_rates(plt, rates, png_path)
    print(open(md_path).read())


if __name__ == "__main__":
    main()
