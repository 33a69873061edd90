"""Reading what a run measured from the tools' machine-readable output in its folder: fio's
JSON (--output-format=json), IOR's JSON summary (-O summaryFormat=JSON), mdtest's CSV
(--saveRankPerformanceDetails: its "all" row holds the same rates as the summary table), the
find phase's JSON, BB_RESULT lines, and phases.txt. Every figure is {"key", "value", "unit",
"higher_is_better"}; a tool's output that is missing or unreadable raises ResultError."""
import csv
import re
import glob
import json
import os

from . import labels, stats


class ResultError(ValueError):
    pass


def figure(key, value, unit, higher=True):
    return {"key": key, "value": value, "unit": unit, "higher_is_better": higher}


def _load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise ResultError(f"{os.path.basename(path)}: unreadable ({e})")


def to_close_ms(path, doc, direction):
    """A write's time from its first I/O to fio's report, which comes after the close (when the
    phase wrote a latency log: first line = completion time in Unix ms, latency in ns); 0 else."""
    log = path[:-len(".json")] + "_lat.1.log"
    if direction != "write" or not os.path.exists(log):
        return 0
    with open(log) as f:
        first = f.readline().split(",")
    if len(first) < 2:
        return 0
    started_ms = int(first[0]) - int(first[1]) / 1e6
    return max(0, doc["timestamp_ms"] - started_ms)


def fio_phase(out_dir, name, random_io):
    """Aggregate of every task's fio JSON of one phase, as IOR computes it: all bytes (or
    operations) of every task / the longest task's run time."""
    files = sorted(glob.glob(os.path.join(out_dir, f"{name}.*.json")))
    if not files:
        raise ResultError(f"{name}: no fio output")
    agg = {d: {"bytes": 0, "ios": 0, "runtime_ms": 0} for d in ("read", "write")}
    for path in files:
        doc = _load_json(path)
        for job in doc.get("jobs", []):
            for d in ("read", "write"):
                agg[d]["bytes"] += job[d]["io_bytes"]
                agg[d]["ios"] += job[d]["total_ios"]
                agg[d]["runtime_ms"] = max(agg[d]["runtime_ms"], job[d]["runtime"], to_close_ms(path, doc, d))
    figs, total_ios, longest = [], 0, 0
    for d in ("write", "read"):
        a = agg[d]
        if a["ios"] == 0 or a["runtime_ms"] <= 0:
            continue
        total_ios += a["ios"]
        longest = max(longest, a["runtime_ms"])
        if not random_io:
            figs.append(figure(f"{name}.{d}", a["bytes"] / 2**20 / (a["runtime_ms"] / 1000.0), "MiB/s"))
    if random_io and longest > 0:
        figs.append(figure(f"{name}.iops", total_ios / (longest / 1000.0), "IOPS"))
    if not figs:
        raise ResultError(f"{name}: fio did no I/O")
    return figs, {"tasks": len(files), "aggregate": agg}


def ior_phase(out_dir, name, unit="MiB/s"):
    doc = _load_json(os.path.join(out_dir, f"{name}.json"))
    summary = doc.get("summary") or []
    if not summary:
        raise ResultError(f"{name}: IOR's summary is empty")
    figs = []
    for s in summary:
        mib = s["bwMeanMIB"]
        figs.append(figure(f"{name}.{s['operation']}", mib / 1024.0 if unit == "GiB/s" else mib, unit))
    return figs, {"summary": summary}


MDTEST_OPS = {"File creation": "create", "File stat": "stat", "File read": "read", "File removal": "remove",
              "Directory creation": "dir_create", "Directory stat": "dir_stat", "Directory removal": "dir_remove"}


def mdtest_rates(out_dir, name):
    """{operation: ops/s} from the "all" row of mdtest's CSV; ResultError when mdtest reported an
    error in its output (its -X verify failure exits 0)."""
    txt = os.path.join(out_dir, f"{name}.txt")
    if os.path.exists(txt):
        with open(txt, errors="replace") as f:
            bad = [line.strip() for line in f if "ERROR" in line or "verify" in line.lower() and "fail" in line.lower()]
        if bad:
            raise ResultError(f"{name}: mdtest reported {bad[0]!r}")
    try:
        with open(os.path.join(out_dir, f"{name}.csv")) as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise ResultError(f"{name}: no mdtest CSV ({e.strerror})")
    row = next((r for r in rows if r.get("rank") == "all"), None)
    if row is None:
        raise ResultError(f"{name}: mdtest's CSV has no 'all' row")
    rates = {}
    for col, op in MDTEST_OPS.items():
        v = row.get(f"rate-{col}")
        if v not in (None, ""):
            rates[op] = float(v)
    return rates


def mdtest_phase(out_dir, name):
    rates = mdtest_rates(out_dir, name)
    if not rates:
        raise ResultError(f"{name}: mdtest measured no operation")
    return [figure(f"{name}.{op}", v, "ops/s") for op, v in rates.items()], {"rates": rates}


# The mdtest operation each IO500 metadata phase is scored by.
IO500_MDTEST = {"mdtest-easy-write": "create", "mdtest-easy-stat": "stat", "mdtest-easy-delete": "remove",
                "mdtest-hard-write": "create", "mdtest-hard-stat": "stat", "mdtest-hard-read": "read",
                "mdtest-hard-delete": "remove"}


def io500_phases(out_dir):
    """{phase: value}: IOR phases in GiB/s, mdtest phases and find in kIOPS; phases that did
    not run or failed are left out (io500_scores then scores 0)."""
    phases, errors = {}, {}
    for p in stats.IO500_BW_PHASES:
        try:
            op = "write" if p.endswith("write") else "read"
            figs, _ = ior_phase(out_dir, p, "GiB/s")
            phases[p] = next(f["value"] for f in figs if f["key"].endswith("." + op))
        except (ResultError, StopIteration) as e:
            errors[p] = str(e)
    for p, op in IO500_MDTEST.items():
        try:
            phases[p] = mdtest_rates(out_dir, p)[op] / 1000.0
        except (ResultError, KeyError) as e:
            errors[p] = str(e)
    try:
        phases["find"] = _load_json(os.path.join(out_dir, "find.json"))["rate"] / 1000.0
    except (ResultError, KeyError) as e:
        errors["find"] = str(e)
    return phases, errors


def io500_figures(out_dir):
    phases, errors = io500_phases(out_dir)
    figs = [figure(p, v, "GiB/s" if p.startswith("ior") else "kIOPS") for p, v in phases.items()]
    s = stats.io500_scores(phases)
    figs += [figure("score.bw", s["bw_gib_s"], "GiB/s"), figure("score.md", s["md_kiops"], "kIOPS"),
             figure("score.total", s["total"], "score")]
    return figs, {"phases": phases, "errors": errors, "scores": s}


def metric_unit(metric):
    """The unit a BB_RESULT metric's name ends in (..._mib_s, ..._ops_s, ..._seconds), else the name."""
    for suffix, unit in (("_mib_s", "MiB/s"), ("_gib_s", "GiB/s"), ("_ops_s", "ops/s"), ("_iops", "IOPS"),
                         ("_seconds", "s"), ("_s", "s")):
        if metric.endswith(suffix):
            return unit
    return metric


def bb_results(stdout_text):
    """Every metric a job reported with BB_RESULT lines (the last value of each)."""
    out = {}
    for line in stdout_text.splitlines():
        r = labels.parse_bb_result(line)
        if r:
            out[r["metric"]] = r
    return [figure(m, r["value"], metric_unit(m), r["higher_is_better"]) for m, r in out.items()]


# What says why a run failed, the most telling first.
CAUSES = (re.compile(r"ERROR"), re.compile(r"No such file|[Pp]ermission denied|cannot|[Ff]ailed|[Ee]rror|Abort"))


def failure_cause(out_dir):
    """The first line that says why a failed run failed: from the tools' text output, then the
    job's stderr and stdout (bbctl's own summary lines left out); "" when none says."""
    paths = sorted(glob.glob(os.path.join(out_dir, "*.txt")))
    paths = [p for p in paths if os.path.basename(p) not in ("stdout.txt", "stderr.txt", "phases.txt")]
    texts = []
    for path in paths + [os.path.join(out_dir, "stderr.txt"), os.path.join(out_dir, "stdout.txt")]:
        try:
            with open(path, errors="replace") as f:
                texts += [ln.strip() for ln in f.read().splitlines()]
        except OSError:
            continue
    texts = [ln for ln in texts if not ln.startswith(("bbctl: job ", "phase ", "MPI_ABORT", "with errorcode"))]
    for pattern in CAUSES:
        for line in texts:
            if pattern.search(line):
                return line[:200]
    return ""


def phase_times(out_dir):
    """[{"name", "exit_status", "seconds"}] from phases.txt (the phase's time in the batch shell,
    launch included)."""
    path = os.path.join(out_dir, "phases.txt")
    out = []
    if os.path.exists(path):
        with open(path) as f:
            lines = f.read().splitlines()
        for line in lines:
            parts = line.split()
            if len(parts) == 4:
                out.append({"name": parts[0], "exit_status": int(parts[1]), "seconds": float(parts[3]) - float(parts[2])})
    return out


def collect(workload, out_dir, stdout_text):
    """(figures, details) of one finished run of `workload`."""
    tool, figs, details = workload["tool"], [], {}
    if tool in ("fio", "ior", "mdtest"):
        for p in workload["phases"]:
            if tool == "fio":
                f, d = fio_phase(out_dir, p["name"], "rand" in p["args"] or "--ioengine=file" in p["args"])
            elif tool == "ior":
                f, d = ior_phase(out_dir, p["name"])
            else:
                f, d = mdtest_phase(out_dir, p["name"])
            figs += f
            details[p["name"]] = d
    elif tool == "io500":
        figs, details = io500_figures(out_dir)
    else:
        figs = bb_results(stdout_text)
    details["phase_times"] = phase_times(out_dir)
    return figs, details
