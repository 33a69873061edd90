"""A recording's figures as CSV rows, one per variant and phase: median and range over the rounds
(bench/results/phases.csv; bench/charts.py draws it). Appending keeps earlier recordings, so the
file is the figures' history and the charts take the newest recording."""
import csv
import os
import statistics

COLUMNS = ["commit", "date", "part", "nodes", "variant", "phase", "unit", "median", "low", "high"]


def row(commit, date, part, nodes, variant, phase, unit, values):
    """The row of one variant's phase over its rounds; None when no round measured it."""
    xs = [x for x in values if x is not None]
    if not xs:
        return None
    return {"commit": commit, "date": date, "part": part, "nodes": nodes, "variant": variant, "phase": phase,
            "unit": unit, "median": f"{statistics.median(xs):.6g}", "low": f"{min(xs):.6g}", "high": f"{max(xs):.6g}"}


def append(path, rows):
    rows = [r for r in rows if r]
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if fresh:
            w.writeheader()
        w.writerows(rows)
    return len(rows)
