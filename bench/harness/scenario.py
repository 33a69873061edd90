"""Scenario files (bench/phases/scenarios/*.yaml): reading, checking and expanding into runs.

A scenario names the cluster geometry, the modes, the chunk size, the repeats, a timeout and a
list of workloads; a sweep varies one setting. load() checks every field and raises
ScenarioError naming the file, the field and the value; expand() is pure and gives the runs in
the order they are made (repeats outermost, the modes rotated so none always runs first).
The format is described in bench/phases/README.md ("Scenario files")."""
import re

import yaml

TOOLS = ("fio", "ior", "mdtest", "script", "io500")
SWEEPABLE = ("chunk_size", "tasks_per_node", "nodes", "metadata_server_ratio", "profile")
# Placeholders the job scripts fill in for every task (bench/harness/jobs.py).
BUILTINS = ("rank", "peer", "node", "ntasks", "tpn", "dir", "out")
OFFSET_BUILTINS = ("offset", "peer_offset")
TOP_FIELDS = {"name", "description", "nodes", "tasks_per_node", "link_rate", "modes", "chunk_size",
              "metadata_server_ratio", "repeats", "timeout", "profile", "probe", "vars", "sweep", "workloads"}
WORKLOAD_FIELDS = {"name", "description", "tool", "args", "phases", "file", "script", "params", "nodes",
                   "tasks_per_node", "timeout", "modes", "repeats", "paper"}
DEFAULTS = {"nodes": 4, "tasks_per_node": 1, "link_rate": "1gbit", "modes": [1, 2, 3, 4], "chunk_size": "512KiB",
            "metadata_server_ratio": 0.25, "repeats": 3, "timeout": 300, "profile": False, "probe": False}
UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
         "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}


class ScenarioError(ValueError):
    """A bad scenario file: the message names the file, the field and the value."""


def parse_size(text):
    """Bytes of "512KiB", "4m", "47008" (binary units). ValueError when it is not a size."""
    if isinstance(text, bool):
        raise ValueError("not a size")
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).lower() not in UNITS:
        raise ValueError("not a size (a number with B, KiB, MiB or GiB)")
    return int(m.group(1)) * UNITS[m.group(2).lower()]


def format_size(n):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


class _Checker:
    def __init__(self, path):
        self.path = path

    def fail(self, field, value, why):
        raise ScenarioError(f"{self.path}: {field}: {value!r}: {why}")

    def integer(self, field, v, lo=1, hi=None):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
            self.fail(field, v, f"must be an integer {lo}..{hi}" if hi else f"must be an integer >= {lo}")
        return v

    def chunk(self, field, v):
        try:
            n = parse_size(v)
        except ValueError as e:
            self.fail(field, v, str(e))
        if n < 4096 or n > (1 << 30) or n & (n - 1):
            self.fail(field, v, "a chunk size is a power of two from 4KiB to 1GiB")
        return format_size(n)

    def ratio(self, field, v):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            self.fail(field, v, "must be a number in (0, 1]")
        return float(v)

    def modes(self, field, v):
        if not isinstance(v, list) or not v or any(isinstance(m, bool) or m not in (1, 2, 3, 4) for m in v):
            self.fail(field, v, "must be a non-empty list of modes 1..4")
        if len(set(v)) != len(v):
            self.fail(field, v, "lists a mode twice")
        return list(v)

    def boolean(self, field, v):
        if not isinstance(v, bool):
            self.fail(field, v, "must be true or false")
        return v

    def setting(self, field, name, v):
        """One value of a sweepable setting (or of the same field at the top)."""
        if name == "chunk_size":
            return self.chunk(field, v)
        if name in ("tasks_per_node", "nodes"):
            return self.integer(field, v, 1, 256)
        if name == "metadata_server_ratio":
            return self.ratio(field, v)
        return self.boolean(field, v)


def _placeholders(text):
    return re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}", text)


def _check_args(c, field, text, variables):
    if not isinstance(text, str):
        c.fail(field, text, "must be a string of command-line arguments")
    for name, arg in _placeholders(text):
        if name in OFFSET_BUILTINS:
            try:
                parse_size(arg)
            except ValueError:
                c.fail(field, text, f"{{{name}:SIZE}} needs a size, got {arg!r}")
        elif name not in BUILTINS and name not in variables:
            c.fail(field, text, f"unknown placeholder {{{name}}} (vars: {sorted(variables)}; built in: {list(BUILTINS)})")


def _check_workload(c, i, w, variables, names):
    where = f"workloads[{i}]"
    if not isinstance(w, dict):
        c.fail(where, w, "must be a mapping")
    for k in w:
        if k not in WORKLOAD_FIELDS:
            c.fail(f"{where}.{k}", w[k], f"unknown field (known: {sorted(WORKLOAD_FIELDS)})")
    name = w.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", name):
        c.fail(f"{where}.name", name, "must be a name of letters, digits and _.+-")
    if name in names:
        c.fail(f"{where}.name", name, "is used by two workloads")
    names.add(name)
    where = f"workloads[{name}]"
    tool = w.get("tool")
    if tool not in TOOLS:
        c.fail(f"{where}.tool", tool, f"must be one of {list(TOOLS)}")
    out = {"name": name, "tool": tool, "description": str(w.get("description", "")), "paper": str(w.get("paper", ""))}
    for k in ("nodes", "tasks_per_node", "repeats"):
        if k in w:
            out[k] = c.integer(f"{where}.{k}", w[k], 1, 256)
    if "timeout" in w:
        out["timeout"] = c.integer(f"{where}.timeout", w["timeout"], 1, 86400)
    if "modes" in w:
        out["modes"] = c.modes(f"{where}.modes", w["modes"])
    if tool in ("fio", "ior", "mdtest"):
        if ("args" in w) == ("phases" in w):
            c.fail(where, sorted(w), "needs exactly one of args (one phase) or phases")
        phases = w["phases"] if "phases" in w else [{"name": tool, "args": w["args"]}]
        if not isinstance(phases, list) or not phases:
            c.fail(f"{where}.phases", phases, "must be a non-empty list of {name, args}")
        out["phases"] = []
        for j, p in enumerate(phases):
            if not isinstance(p, dict) or set(p) - {"name", "args"} or not isinstance(p.get("name"), str):
                c.fail(f"{where}.phases[{j}]", p, "must be {name: NAME, args: ARGS}")
            _check_args(c, f"{where}.phases[{p['name']}].args", p.get("args"), variables)
            out["phases"].append({"name": p["name"], "args": p["args"]})
        if tool == "fio":
            out["file"] = w.get("file", "per_task")
            if out["file"] not in ("per_task", "shared"):
                c.fail(f"{where}.file", out["file"], "must be per_task or shared")
    elif tool == "script":
        if not isinstance(w.get("script"), str):
            c.fail(f"{where}.script", w.get("script"), "must name a job script (relative to the scenario file)")
        out["script"] = w["script"]
        args = w.get("args", "")
        _check_args(c, f"{where}.args", args, variables)
        out["args"] = args
    else:  # io500
        params = w.get("params", {})
        known = {"ior_easy_block": "64MiB", "ior_hard_segments": 400, "mdtest_easy_files": 500,
                 "mdtest_hard_files": 300, "stonewall": 60}
        if not isinstance(params, dict) or set(params) - set(known):
            c.fail(f"{where}.params", params, f"must be a mapping of {sorted(known)}")
        p = dict(known, **params)
        for k in ("ior_hard_segments", "mdtest_easy_files", "mdtest_hard_files", "stonewall"):
            c.integer(f"{where}.params.{k}", p[k], 1, 10**7)
        try:
            p["ior_easy_block"] = format_size(parse_size(p["ior_easy_block"]))
        except ValueError as e:
            c.fail(f"{where}.params.ior_easy_block", p["ior_easy_block"], str(e))
        out["params"] = p
    return out


def check(doc, path):
    """The scenario as a dict with every default filled in; ScenarioError when a field is bad."""
    c = _Checker(path)
    if not isinstance(doc, dict):
        c.fail("(top)", doc, "a scenario file is a YAML mapping")
    for k in doc:
        if k not in TOP_FIELDS:
            c.fail(k, doc[k], f"unknown field (known: {sorted(TOP_FIELDS)})")
    s = dict(DEFAULTS, **doc)
    if not isinstance(s.get("name"), str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", s.get("name") or ""):
        c.fail("name", s.get("name"), "must be a name of letters, digits and _.-")
    s["nodes"] = c.integer("nodes", s["nodes"], 1, 256)
    s["tasks_per_node"] = c.integer("tasks_per_node", s["tasks_per_node"], 1, 256)
    s["repeats"] = c.integer("repeats", s["repeats"], 1, 1000)
    s["timeout"] = c.integer("timeout", s["timeout"], 1, 86400)
    s["modes"] = c.modes("modes", s["modes"])
    s["chunk_size"] = c.chunk("chunk_size", s["chunk_size"])
    s["metadata_server_ratio"] = c.ratio("metadata_server_ratio", s["metadata_server_ratio"])
    s["profile"] = c.boolean("profile", s["profile"])
    s["probe"] = c.boolean("probe", s["probe"])
    if not isinstance(s["link_rate"], str) or not re.fullmatch(r"\d+(\.\d+)?[kmg]?bit", s["link_rate"]):
        c.fail("link_rate", s["link_rate"], "must be a rate like 1gbit or 250mbit")
    variables = s.get("vars", {}) or {}
    if not isinstance(variables, dict) or any(not isinstance(v, (str, int, float)) for v in variables.values()):
        c.fail("vars", variables, "must be a mapping of names to strings or numbers")
    s["vars"] = {str(k): str(v) for k, v in variables.items()}
    sweep = s.get("sweep")
    if sweep is not None:
        if not isinstance(sweep, dict) or set(sweep) != {"setting", "values"}:
            c.fail("sweep", sweep, "must be {setting: NAME, values: [...]}")
        if sweep["setting"] not in SWEEPABLE:
            c.fail("sweep.setting", sweep["setting"], f"must be one of {list(SWEEPABLE)}")
        if not isinstance(sweep["values"], list) or len(sweep["values"]) < 2:
            c.fail("sweep.values", sweep["values"], "must list at least two values")
        vals = [c.setting(f"sweep.values[{i}]", sweep["setting"], v) for i, v in enumerate(sweep["values"])]
        if len(set(map(str, vals))) != len(vals):
            c.fail("sweep.values", sweep["values"], "lists a value twice")
        s["sweep"] = {"setting": sweep["setting"], "values": vals}
    ws = s.get("workloads")
    if not isinstance(ws, list) or not ws:
        c.fail("workloads", ws, "must be a non-empty list")
    names = set()
    s["workloads"] = [_check_workload(c, i, w, s["vars"], names) for i, w in enumerate(ws)]
    s["path"] = path
    return s


def load(path):
    """Reads and checks one scenario file. ScenarioError naming the file on any problem."""
    try:
        with open(path) as f:
            doc = yaml.safe_load(f)
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror}")
    except yaml.YAMLError as e:
        raise ScenarioError(f"{path}: not valid YAML: {e}")
    return check(doc, path)


def _safe(text):
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", str(text))


def expand(s):
    """The runs of a checked scenario, in the order they are made. Each run is a dict with the
    scenario's and workload's names, mode, chunk_size, metadata_server_ratio, nodes,
    tasks_per_node, timeout, profile, repeat, sweep ({setting, value} or None) and id (unique,
    usable as a file name). Repeats are outermost; within a repeat the (sweep value, mode)
    combinations of a workload start at the (repeat mod count)-th, so none always runs first."""
    runs = []
    if s["probe"]:
        # One probe run per workload (mode 3, --profile): what it shares across nodes decides
        # whether mode 1 keeps the workload's semantics (labels.profile_disqualifies).
        for w in s["workloads"]:
            runs.append({"scenario": s["name"], "workload": w["name"], "tool": w["tool"], "mode": 3, "repeat": 0,
                         "chunk_size": s["chunk_size"], "metadata_server_ratio": s["metadata_server_ratio"],
                         "nodes": w.get("nodes", s["nodes"]), "tasks_per_node": w.get("tasks_per_node", s["tasks_per_node"]),
                         "timeout": w.get("timeout", s["timeout"]), "profile": True, "probe": True, "sweep": None,
                         "id": f"{_safe(s['name'])}.{_safe(w['name'])}.probe"})
    sweep = s.get("sweep")
    values = sweep["values"] if sweep else [None]
    max_repeats = max([w.get("repeats", s["repeats"]) for w in s["workloads"]])
    for r in range(max_repeats):
        for w in s["workloads"]:
            if r >= w.get("repeats", s["repeats"]):
                continue
            combos = [(v, m) for v in values for m in w.get("modes", s["modes"])]
            k = r % len(combos)
            for v, m in combos[k:] + combos[:k]:
                run = {"scenario": s["name"], "workload": w["name"], "tool": w["tool"], "mode": m, "repeat": r,
                       "chunk_size": s["chunk_size"], "metadata_server_ratio": s["metadata_server_ratio"],
                       "nodes": w.get("nodes", s["nodes"]), "tasks_per_node": w.get("tasks_per_node", s["tasks_per_node"]),
                       "timeout": w.get("timeout", s["timeout"]), "profile": s["profile"], "probe": False, "sweep": None}
                tag = ""
                if sweep:
                    run[sweep["setting"]] = v
                    run["sweep"] = {"setting": sweep["setting"], "value": v}
                    tag = f"{sweep['setting']}={_safe(v)}."
                run["id"] = f"{_safe(s['name'])}.{_safe(w['name'])}.{tag}m{m}.r{r}"
                runs.append(run)
    return runs


def mode_file_text(run):
    """The mode file of one run: mode, chunk_size and, for mode 2, metadata_server_ratio."""
    lines = [f"mode: {run['mode']}", f"chunk_size: {run['chunk_size']}"]
    if run["mode"] == 2:
        lines.append(f"metadata_server_ratio: {run['metadata_server_ratio']}")
    lines += ["confidence: 1.0", f"reason: \"bench harness run {run['id']}\"", "selected_by: user"]
    return "\n".join(lines) + "\n"
