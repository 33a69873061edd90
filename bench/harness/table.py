"""The harness's runs as one CSV per recording (bench/results/<recording>.csv): one row per
figure of a run, so that the run files (<out>/runs/*.json, raw/) can stay outside the tree and
the charts (bench/charts.py) are made from the CSV alone. A run without figures (it failed
before measuring) is one row with an empty figure and its error."""
import csv
import datetime
import os
import subprocess

from . import results

COLUMNS = ["commit", "date", "run", "scenario", "workload", "mode", "repeat", "setting", "value_of_setting",
           "ok", "figure", "value", "unit", "higher_is_better", "error"]


def git_commit(repo):
    """The short commit of REPO's checkout (the build measured), "unknown" outside git."""
    p = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else "unknown"


def _setting_value(v):
    return str(v).lower() if isinstance(v, bool) else v


def rows_of_run(doc, commit):
    """The CSV rows (dicts over COLUMNS) of one run's record."""
    sweep = doc.get("sweep") or {}
    started = doc.get("started_unix")
    base = {"commit": commit,
            "date": datetime.datetime.fromtimestamp(started, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
            if started else "",
            "run": doc["id"], "scenario": doc["scenario"], "workload": doc["workload"], "mode": doc["mode"],
            "repeat": doc["repeat"], "setting": sweep.get("setting", ""),
            "value_of_setting": _setting_value(sweep.get("value", "")),
            "ok": int(bool(doc.get("ok"))), "error": (doc.get("error") or "").splitlines()[0] if doc.get("error") else ""}
    figures = doc.get("figures") or []
    if not figures:
        return [dict(base, figure="", value="", unit="", higher_is_better="")]
    # Runs recorded before BB_RESULT metrics got units carry the metric's name as its unit.
    return [dict(base, figure=f["key"], value=f["value"],
                 unit=results.metric_unit(f["unit"]) if f["unit"] == f["key"] else f["unit"],
                 higher_is_better=int(bool(f["higher_is_better"]))) for f in figures]


def append(path, docs, commit):
    """Appends the rows of the runs in DOCS not yet in PATH (a run is its id and date); writes the
    header when PATH is new. Returns the number of runs added."""
    seen = set()
    if os.path.exists(path):
        with open(path, newline="") as f:
            seen = {(r["run"], r["date"]) for r in csv.DictReader(f)}
    new = [rows_of_run(d, commit) for d in docs]
    new = [rows for rows in new if (rows[0]["run"], rows[0]["date"]) not in seen]
    if not new:
        return 0
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if fresh:
            w.writeheader()
        for rows in new:
            w.writerows(rows)
    return len(new)
