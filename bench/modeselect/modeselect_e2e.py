#!/usr/bin/python3
"""The mode selector end to end, as the paper's Fig. 13: for every labelled corpus job, the job's
figure in the mode the selector chose against mode 3 (the default) and against the oracle's best
mode, from the oracle's measured runs (each mode run 3 times; medians).

  bench/modeselect/modeselect_e2e.py [--labels modeselect/corpus/oracle/labels.json] [--corpus modeselect/corpus]
                          [--bb-modeselect build/bin/bb-modeselect] [--out bench/results/modeselect.md]

Writes OUT and, beside it, eval's own report (OUT's name with _eval: accuracy, ablations, confusion,
every decision and its reason, time per decision), and replaces the rows of this group of jobs
(the corpus folder's name) in --picks: the selector's pick per job and evidence set, which
bench/charts.py draws beside the oracle's labels.

The selector's decisions come from `bb-modeselect eval --json` on the corpus and the committed
probe profiles (all three evidence sets). Speedup over mode 3 = mode 3's median / the mode's
median for a time (lower is better), the mode's / mode 3's for a rate. Per evidence set: the
geometric mean over the jobs of the selected mode's speedup and of the oracle's, and the fraction
of the oracle's speedup captured, (G_selected - 1) / (G_oracle - 1). A job whose selected mode
the oracle disqualified (mode 1 breaking its semantics) is counted as broken and left out of the
means. The probe run the selection needs (one run of the job in mode 3) is not counted.
"""
import argparse
import csv
import datetime
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/: the harness package
from harness import report, stats, table  # noqa: E402

PICK_COLUMNS = ["commit", "date", "group", "evidence", "job", "selected", "by", "oracle", "right"]


def job_speedups(entry, mode):
    """(speedup of `mode` over mode 3, speedup of the oracle's label over mode 3, broken)."""
    higher = entry["figure"]["higher_is_better"]
    med = {int(k): v for k, v in entry["medians"].items()}
    base = med.get(3)
    broken = str(mode) in entry.get("disqualified", {}) or mode not in med
    best = stats.speedup(med[entry["label"]], base, higher)
    return (None if broken else stats.speedup(med[mode], base, higher)), best, broken


def summarize(labels, results):
    """Per-job rows and the means for one evidence set's eval results."""
    rows, sel, best, broken = [], [], [], []
    for r in results:
        entry = labels["jobs"].get(r["name"])
        if entry is None or entry.get("label") is None:
            continue
        mode = r["decision"]["selected_mode"]
        s, b, bad = job_speedups(entry, mode)
        rows.append({"job": r["name"], "selected": mode, "by": r["decision"].get("selected_by", ""),
                     "label": entry["label"], "ties": entry["ties"], "right": r["correct"], "speedup": s,
                     "best": b, "broken": bad, "metric": entry["figure"]["metric"]})
        if bad:
            broken.append(r["name"])
        else:
            sel.append(s)
            best.append(b)
    g_sel, g_best = stats.geomean(sel), stats.geomean(best)
    captured = (g_sel - 1) / (g_best - 1) if g_best > 1 else None
    return {"rows": rows, "geomean_selected": g_sel, "geomean_oracle": g_best, "captured": captured,
            "broken": broken, "jobs": len(rows)}


def render(labels, sets, command):
    out = ["# The mode selector end to end", "",
           f"Command: `{command}`; the oracle's runs: `{labels['command']}`.", "",
           f"Machine: {report.machine()}.", "",
           "Figures: the oracle's medians (3 runs per mode, 4 emulated nodes, 1 Gbit/s links). Speedup: over "
           "mode 3 (mode 3's time / the mode's, or the mode's rate / mode 3's). Captured: (G_selected − 1) / "
           "(G_oracle − 1) of the geometric means. The probe run the selection needs is not counted.", "",
           "| evidence | jobs | right | geomean speedup, selected | geomean speedup, oracle | captured | broken |",
           "|---|---|---|---|---|---|---|"]
    for name, s in sets.items():
        right = sum(1 for r in s["rows"] if r["right"])
        cap = f"{100 * s['captured']:.0f} %" if s["captured"] is not None else "—"
        out.append(f"| {name} | {s['jobs']} | {right} | {s['geomean_selected']:.3f}x | {s['geomean_oracle']:.3f}x | "
                   f"{cap} | {len(s['broken'])} |")
    main = sets["static + profile"]
    out += ["", "Per job (static + profile evidence):", "",
            "| job | figure | selected (by) | oracle (ties) | right | selected / mode 3 | oracle / mode 3 |",
            "|---|---|---|---|---|---|---|"]
    for r in sorted(main["rows"], key=lambda r: r["job"]):
        ties = f" ({', '.join(map(str, r['ties']))})" if r["ties"] else ""
        sp = "breaks the job" if r["broken"] else f"{r['speedup']:.2f}x"
        out.append(f"| {r['job']} | {r['metric']} | {r['selected']} ({r['by']}) | {r['label']}{ties} | "
                   f"{'yes' if r['right'] else '**no**'} | {sp} | {r['best']:.2f}x |")
    return "\n".join(out) + "\n"


def pick_rows(sets, group, commit, date):
    """The --picks rows of one group's eval: one per job and evidence set."""
    return [{"commit": commit, "date": date, "group": group, "evidence": evidence, "job": r["job"],
             "selected": r["selected"], "by": r["by"], "oracle": r["label"], "right": int(bool(r["right"]))}
            for evidence, s in sets.items() for r in sorted(s["rows"], key=lambda r: r["job"])]


def write_picks(path, group, rows):
    """PATH with its rows of GROUP replaced by ROWS (the other groups' rows kept, in their order)."""
    kept = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            kept = [r for r in csv.DictReader(f) if r["group"] != group]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=PICK_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(kept + rows)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--labels", default=os.path.join(root, "modeselect/corpus/oracle/labels.json"))
    p.add_argument("--corpus", default=os.path.join(root, "modeselect/corpus"))
    p.add_argument("--bb-modeselect", default=os.path.join(root, "build/bin/bb-modeselect"))
    p.add_argument("--out", default=os.path.join(root, "bench/results/modeselect.md"))
    p.add_argument("--picks", default=os.path.join(root, "bench/results/modeselect_picks.csv"))
    a = p.parse_args(argv)
    if not os.access(a.bb_modeselect, os.X_OK):
        print(f"modeselect_e2e: {a.bb_modeselect} is missing: build first (tools/build.sh)", file=sys.stderr)
        return 2
    with open(a.labels) as f:
        labels = json.load(f)
    eval_md = os.path.splitext(a.out)[0] + "_eval.md"
    run = subprocess.run([a.bb_modeselect, "eval", "--corpus", a.corpus, "--labels", a.labels, "--json", "--report",
                          eval_md], capture_output=True, text=True)
    if run.returncode != 0:
        print(f"modeselect_e2e: bb-modeselect eval failed: {run.stderr.strip()}", file=sys.stderr)
        return 1
    sets = {e["evidence"]: summarize(labels, e["results"]) for e in json.loads(run.stdout)}
    command = "bench/modeselect/modeselect_e2e.py" + "".join(f" {x}" for x in argv)
    text = render(labels, sets, command)
    with open(a.out, "w") as f:
        f.write(text)
    group = os.path.basename(os.path.normpath(a.corpus))
    write_picks(a.picks, group, pick_rows(sets, group, table.git_commit(root), datetime.date.today().isoformat()))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
