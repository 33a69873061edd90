"""Pure logic of the oracle (bench/modeselect/oracle.py): which modes a job's probe profile rules out,
the BB_RESULT contract, the run order, and the label of a job from its runs. No I/O."""
import re

from . import stats

# A job whose length is fixed by the clock reports its figure on stdout, one line per run:
#   BB_RESULT metric=<name> value=<number> higher_is_better=1
# (higher_is_better=0 when lower is better). The last such line of a run counts.
BB_RESULT = re.compile(r"^BB_RESULT\s+metric=(\S+)\s+value=(\S+)(?:\s+higher_is_better=([01]))?\s*$")


def parse_bb_result(text):
    """The last BB_RESULT line of a job's output as {"metric", "value", "higher_is_better"}, or
    None. A line whose value is not a number is an error (ValueError naming the line)."""
    found = None
    for line in text.splitlines():
        m = BB_RESULT.match(line.strip())
        if not m:
            continue
        try:
            value = float(m.group(2))
        except ValueError:
            raise ValueError(f"BB_RESULT line with a value that is not a number: {line.strip()!r}")
        found = {"metric": m.group(1), "value": value, "higher_is_better": m.group(3) != "0"}
    return found


def _nodes(entry, *keys):
    out = set()
    for k in keys:
        v = entry.get(k)
        if v is None:
            continue
        out.update(v if isinstance(v, list) else [v])
    return out


def cross_node_sharing(profile):
    """What in a probe profile (tools/jobs/profile_doc.h) crosses nodes, so that node-local
    mode (1) would change what the job sees: a file made or written on one node and opened,
    read, stat'ed or written on another; a directory listed on a node while another node put
    entries in it (the listing would miss them). A directory only looked up or given entries
    on several nodes is not sharing by itself: a job that makes it on every node (mkdir -p) sees
    the same in mode 1, and one that does not fails there visibly (ENOENT), which disqualifies
    mode 1 by the run. The root "/" is left out (every node has it). Returns a list of
    {"path", "kind", "made_on", "used_on"}; empty when the job is node-private."""
    found = []
    for f in profile.get("files", []):
        made = _nodes(f, "created_on", "writer_nodes")
        used = _nodes(f, "opened_on", "reader_nodes", "stat_nodes", "writer_nodes")
        if made and any(u != m for m in made for u in used):
            found.append({"path": f["path"], "kind": "file", "made_on": sorted(made), "used_on": sorted(used)})
    for d in profile.get("dirs", []):
        if d.get("path") == "/":
            continue
        made = _nodes(d, "entry_nodes")
        listed = _nodes(d, "readdir_nodes")
        if made and any(u != m for m in made for u in listed):
            found.append({"path": d["path"], "kind": "dir", "made_on": sorted(made), "used_on": sorted(listed)})
    return found


def profile_disqualifies(profile):
    """{mode: reason} of the modes a probe profile rules out: mode 1 (node-local) when anything
    crosses nodes, since there no node sees another node's files."""
    shared = cross_node_sharing(profile)
    if not shared:
        return {}
    first = shared[0]
    more = f" and {len(shared) - 1} more" if len(shared) > 1 else ""
    return {1: (f"breaks the job's semantics: {first['kind']} {first['path']} made on node(s) "
                f"{first['made_on']} and used on {first['used_on']}{more} (probe profile)")}


def run_order(modes, repeats):
    """The order of the runs: repeat r runs every mode, starting from the (r mod n)-th, so no
    mode always runs first and each follows each other. Returns [(repeat, mode), ...]."""
    modes = list(modes)
    out = []
    for r in range(repeats):
        k = r % len(modes)
        out += [(r, m) for m in modes[k:] + modes[:k]]
    return out


def run_failure(run):
    """Why a run disqualifies its mode ("" when it does not): it failed or timed out."""
    if run.get("timed_out"):
        return f"timed out after {run.get('wall_seconds', 0):.0f} s"
    if run.get("exit_status", 0) != 0:
        return f"exit status {run['exit_status']}"
    if run.get("error"):
        return run["error"]
    return ""


def label_job(runs, modes, pre_disqualified=None):
    """The label of one job. runs: [{"mode", "exit_status", "timed_out", "wall_seconds",
    "result": parse_bb_result(...) or None}, ...]; modes: the modes tried; pre_disqualified:
    {mode: reason} from the profile. The figure is the BB_RESULT value when the job reports one
    (its higher_is_better decides), else the wall time (lower is better). Returns {"label",
    "ties", "disqualified": {mode: reason}, "figure": {"metric", "higher_is_better"},
    "figures": {mode: [values]}, "medians": {mode: median}}; label None when every mode is out."""
    disq = {int(k): v for k, v in (pre_disqualified or {}).items()}
    for r in runs:
        why = run_failure(r)
        if why and r["mode"] not in disq:
            disq[r["mode"]] = why
    results = [r["result"] for r in runs if r.get("result")]
    if results:
        metric, higher = results[-1]["metric"], results[-1]["higher_is_better"]
    else:
        metric, higher = "wall_seconds", False
    figures = {m: [] for m in modes}
    for r in runs:
        if metric == "wall_seconds":
            figures[r["mode"]].append(r["wall_seconds"])
        elif r.get("result") and r["result"]["metric"] == metric:
            figures[r["mode"]].append(r["result"]["value"])
    for m in modes:
        if m not in disq and not figures[m]:
            disq[m] = f"no {metric} figure reported"
    candidates = {m: v for m, v in figures.items() if m not in disq}
    label, ties = stats.best_and_ties(candidates, higher)
    return {"label": label, "ties": ties, "disqualified": {m: disq[m] for m in sorted(disq)},
            "figure": {"metric": metric, "higher_is_better": higher},
            "figures": figures, "medians": {m: stats.median(v) for m, v in figures.items() if v}}
