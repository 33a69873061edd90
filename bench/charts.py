#!/usr/bin/python3
"""Draws every chart of the recorded results from their CSVs (and the oracle's labels):

  bench/charts.py [--results bench/results] [--out DIR]      (default: into --results)

A CSV that cannot be read (a missing column, a row with the wrong number of fields, a value that
is no number) stops it with "charts: FILE:LINE: what" and exit status 1; the charts drawn before
it are kept. The charts and their sources are the table CHARTS; the result pages link them."""
import argparse
import os
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
from plots import matrix, modeselect, phases, qos, read  # noqa: E402

MATRIX = ("matrix.csv", ["commit", "date", "scenario", "workload", "mode", "ok", "figure", "value", "unit",
                         "higher_is_better", "value_of_setting"], ["value"])
PHASES = ("phases.csv", ["commit", "date", "part", "nodes", "variant", "phase", "unit", "median", "low", "high"],
          ["median", "low", "high"])
PICKS = ("modeselect_picks.csv", ["commit", "date", "group", "evidence", "job", "selected", "oracle", "right"], [])
QOS = ("qos_rates.csv", ["policy", "t", "job", "rate"], ["t", "rate"])
LABEL_GROUPS = ("corpus", "heldout")

# (chart, its CSV, whether it needs the oracle's labels, what draws it)
CHARTS = [
    ("phases.png", PHASES, False, phases.draw_phases),
    ("scaling.png", PHASES, False, phases.draw_scaling),
    ("modeselect_confusion.png", PICKS, True, modeselect.draw_confusion),
    ("modeselect_speedups.png", PICKS, True, modeselect.draw_speedups),
    ("io500.png", MATRIX, False, matrix.draw_io500),
    ("table1.png", MATRIX, False, matrix.draw_table1),
    ("chunk_sweep.png", MATRIX, False, matrix.draw_chunk_sweep),
    ("qos_rates.png", QOS, False, qos.draw),
]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", default=os.path.join(BENCH, "results"), help="the recorded CSVs")
    p.add_argument("--out", help="where the PNGs go (default: --results)")
    p.add_argument("--labels-root", default=os.path.join(REPO, "modeselect"),
                   help="the folder of the job groups whose <group>/oracle/labels.json the selector's charts use")
    a = p.parse_args(argv)
    out = a.out or a.results
    os.makedirs(out, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    loaded = {}
    try:
        labels = None
        for png, (name, columns, numeric), needs_labels, draw in CHARTS:
            if name not in loaded:
                loaded[name] = read.rows(os.path.join(a.results, name), columns, numeric)
            if needs_labels:
                labels = labels or {g: read.labels(os.path.join(a.labels_root, g, "oracle", "labels.json"))
                                    for g in LABEL_GROUPS}
                draw(plt, loaded[name], labels, os.path.join(out, png))
            else:
                draw(plt, loaded[name], os.path.join(out, png))
            print(os.path.join(out, png))
    except read.CsvError as e:
        print(f"charts: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
